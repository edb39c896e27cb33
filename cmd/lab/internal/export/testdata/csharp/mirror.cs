// Mirror declarations the exports and the game client (clients/mirror) use:
// public members of Mirror (commit c885a6a4), from its sources. Setters
// Mirror keeps internal are internal here too, for the test harnesses only.
using System.Collections.Generic;
using UnityEngine;

namespace Mirror
{
    public abstract class Transport : UnityEngine.MonoBehaviour { }

    public class LatencySimulation : Transport
    {
        public Transport wrap;
        public float latency = 100;
        public float jitter = 0.02f;
        public float jitterSpeed = 1;
        public float unreliableLoss = 2;
        public float unreliableScramble = 2;
    }

    public class SnapshotInterpolationSettings
    {
        public double bufferTimeMultiplier = 2;
        public int bufferLimit = 32;
        public float catchupNegativeThreshold = -1;
        public float catchupPositiveThreshold = 1;
        public double catchupSpeed = 0.02f;
        public double slowdownSpeed = 0.04f;
        public int driftEmaDuration = 1;
        public bool dynamicAdjustment = true;
        public float dynamicAdjustmentTolerance = 1;
        public int deliveryTimeEmaDuration = 2;
    }

    public class NetworkManager : MonoBehaviour
    {
        public int sendRate = 60;
        public SnapshotInterpolationSettings snapshotSettings = new SnapshotInterpolationSettings();
        public static NetworkManager singleton { get; internal set; }
    }

    public static partial class NetworkClient
    {
        public static SnapshotInterpolationSettings snapshotSettings = new SnapshotInterpolationSettings();
        public static double bufferTimeMultiplier;
        public static readonly Dictionary<uint, NetworkIdentity> spawned = new Dictionary<uint, NetworkIdentity>();
    }

    public static partial class NetworkServer
    {
        public static int tickRate = 60;
        public static int sendRate => tickRate;
        public static float sendInterval => sendRate < int.MaxValue ? 1f / sendRate : 0;
        public static bool active { get; internal set; }
    }

    public sealed class NetworkIdentity : MonoBehaviour
    {
        public bool isOwned { get; internal set; }
        public uint netId { get; internal set; }
        public NetworkBehaviour[] NetworkBehaviours { get; internal set; }
    }

    public abstract class NetworkBehaviour : MonoBehaviour
    {
        public float syncInterval = 0;
        public NetworkIdentity netIdentity { get; internal set; }
        public uint netId => netIdentity.netId;
        public byte ComponentIndex { get; internal set; }
        public bool isOwned => netIdentity.isOwned;
    }

    public interface Snapshot
    {
        double remoteTime { get; set; }
        double localTime { get; set; }
    }

    public struct TransformSnapshot : Snapshot
    {
        public double remoteTime { get; set; }
        public double localTime { get; set; }
        public Vector3 position;
        public Quaternion rotation;
        public Vector3 scale;
        public TransformSnapshot(double remoteTime, double localTime, Vector3 position, Quaternion rotation, Vector3 scale)
        {
            this.remoteTime = remoteTime;
            this.localTime = localTime;
            this.position = position;
            this.rotation = rotation;
            this.scale = scale;
        }
    }

    public abstract class NetworkTransformBase : NetworkBehaviour
    {
        public readonly SortedList<double, TransformSnapshot> clientSnapshots = new SortedList<double, TransformSnapshot>(16);
        public bool onlySyncOnChange = true;
        public uint sendIntervalMultiplier
        {
            get
            {
                if (syncInterval > 0)
                {
                    float multiples = syncInterval / NetworkServer.sendInterval;
                    return multiples > 1 ? (uint)System.Math.Round(multiples) : 1;
                }
                return 1;
            }
        }
        public bool timelineOffset = true;
    }
    public class NetworkTransformUnreliable : NetworkTransformBase
    {
        public float bufferResetMultiplier = 3;
        public float positionSensitivity = 0.01f;
    }
}
