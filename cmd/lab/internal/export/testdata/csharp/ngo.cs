// Netcode for GameObjects 2.1.1 declarations the exports use (API reference).
using System;

namespace Unity.Netcode
{
    public class NetworkConfig
    {
        public uint TickRate = 30;
    }
    public class NetworkTimeSystem
    {
        public double LocalBufferSec { get; set; }
        public double ServerBufferSec { get; set; }
        public double HardResetThresholdSec { get; set; }
        public double AdjustmentRatio { get; set; }
    }
    public class NetworkManager : UnityEngine.MonoBehaviour
    {
        public static NetworkManager Singleton { get { return null; } }
        public NetworkConfig NetworkConfig;
        public NetworkTimeSystem NetworkTimeSystem { get { return null; } }
        public event Action OnClientStarted;
        void Raise() { OnClientStarted(); }
    }
    public abstract class NetworkTransport : UnityEngine.MonoBehaviour { }
    public class NetworkBehaviour : UnityEngine.MonoBehaviour { }
}

namespace Unity.Netcode.Components
{
    public class NetworkTransform : Unity.Netcode.NetworkBehaviour
    {
        public float PositionThreshold = 0.001f;
        public bool UseUnreliableDeltas = false;
    }
}
