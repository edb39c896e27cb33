// UnityEngine declarations the exports and the game clients (clients/) use
// (Unity Scripting API).
using System;
using System.Collections;

namespace UnityEngine
{
    public class Object { }
    public class Component : Object
    {
        public T GetComponent<T>() { return default(T); }
    }
    public class Behaviour : Component
    {
        public bool enabled { get; set; } = true;
    }
    public class Coroutine { }
    public class MonoBehaviour : Behaviour
    {
        public Coroutine StartCoroutine(IEnumerator routine) { return null; }
    }
    public abstract class CustomYieldInstruction : IEnumerator
    {
        public abstract bool keepWaiting { get; }
        public object Current { get { return null; } }
        public bool MoveNext() { return keepWaiting; }
        public void Reset() { }
    }
    public class WaitForSecondsRealtime : CustomYieldInstruction
    {
        public WaitForSecondsRealtime(float time) { }
        public override bool keepWaiting { get { return false; } }
    }
    public static class Debug
    {
        // The test harness's stand-in for the Console: errors go to stderr.
        public static void Log(object message) { System.Console.WriteLine("Debug.Log: " + message); }
        public static void LogError(object message) { System.Console.Error.WriteLine("Debug.LogError: " + message); }
        public static void LogWarning(object message) { System.Console.Error.WriteLine("Debug.LogWarning: " + message); }
    }
    public static class Time
    {
        public static float realtimeSinceStartup { get { return 0; } }
        public static float unscaledTime { get { return 0; } }
        public static float maximumDeltaTime { get; set; }
        public static double realtimeSinceStartupAsDouble { get; internal set; }
    }
    public struct Vector3
    {
        public float x, y, z;
        public Vector3(float x, float y, float z) { this.x = x; this.y = y; this.z = z; }
    }
    public struct Quaternion
    {
        public float x, y, z, w;
        public Quaternion(float x, float y, float z, float w) { this.x = x; this.y = y; this.z = z; this.w = w; }
    }
    [AttributeUsage(AttributeTargets.Class)]
    public class DefaultExecutionOrder : Attribute
    {
        public DefaultExecutionOrder(int order) { }
    }
    [AttributeUsage(AttributeTargets.Field)]
    public class TooltipAttribute : Attribute
    {
        public TooltipAttribute(string tooltip) { }
    }
}
