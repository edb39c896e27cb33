// UnityEngine declarations the exports use (Unity Scripting API).
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
        public static void LogError(object message) { System.Console.Error.WriteLine("Debug.LogError: " + message); }
        public static void LogWarning(object message) { System.Console.Error.WriteLine("Debug.LogWarning: " + message); }
    }
    public static class Time
    {
        public static float realtimeSinceStartup { get { return 0; } }
        public static float unscaledTime { get { return 0; } }
        public static float maximumDeltaTime { get; set; }
    }
}
