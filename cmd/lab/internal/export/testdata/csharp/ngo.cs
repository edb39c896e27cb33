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
        public bool IsServer { get { return false; } }
        public bool IsClient { get { return false; } }
        public event Action OnClientStarted;
        public event Action OnServerStarted;
        public bool StartServer() { OnServerStarted(); return true; }
        public bool StartClient() { OnClientStarted(); return true; }
    }
    public abstract class NetworkTransport : UnityEngine.MonoBehaviour { }
    public class NetworkBehaviour : UnityEngine.MonoBehaviour
    {
        public virtual void OnNetworkSpawn() { }
    }
}

namespace Unity.Netcode.Components
{
    public class NetworkTransform : Unity.Netcode.NetworkBehaviour
    {
        public float PositionThreshold = 0.001f;
        public bool UseUnreliableDeltas = false;
        public override void OnNetworkSpawn() { }
        public void SetMaxInterpolationBound(float maxInterpolationBound) { }
    }
}
