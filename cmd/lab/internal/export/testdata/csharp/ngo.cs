// Netcode for GameObjects 2.1.1 declarations the exports and the game client
// (clients/ngo) use (API reference). Members NGO sets internally have
// internal setters here, for the test harnesses only.
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
        public static NetworkManager Singleton { get; internal set; }
        public NetworkConfig NetworkConfig;
        public NetworkTimeSystem NetworkTimeSystem { get; internal set; }
        public bool IsServer { get; internal set; }
        public bool IsClient { get; internal set; }
        public bool IsListening { get; internal set; }
        public event Action OnClientStarted;
        public event Action OnServerStarted;
        public bool StartServer() { OnServerStarted(); return true; }
        public bool StartClient() { OnClientStarted(); return true; }
    }
    public abstract class NetworkTransport : UnityEngine.MonoBehaviour { }
    public abstract class NetworkBehaviour : UnityEngine.MonoBehaviour
    {
        public ulong NetworkObjectId { get; internal set; }
        public ushort NetworkBehaviourId { get; internal set; }
        public virtual void OnNetworkSpawn() { }
        public virtual void OnNetworkDespawn() { }
    }
}

namespace Unity.Netcode.Components
{
    public class NetworkTransform : Unity.Netcode.NetworkBehaviour
    {
        public float PositionThreshold = 0.001f;
        public bool UseUnreliableDeltas = false;
        public override void OnNetworkSpawn() { }
        public override void OnNetworkDespawn() { }
        public void SetMaxInterpolationBound(float maxInterpolationBound) { }

        public struct NetworkTransformState
        {
            internal UnityEngine.Vector3 m_Position;
            internal UnityEngine.Quaternion m_Rotation;
            internal int m_Tick;
            internal bool m_HasPosition, m_HasRotation;
            public bool HasPositionChange { get { return m_HasPosition; } }
            public bool HasRotAngleChange { get { return m_HasRotation; } }
            public UnityEngine.Vector3 GetPosition() { return m_Position; }
            public UnityEngine.Quaternion GetRotation() { return m_Rotation; }
            public int GetNetworkTick() { return m_Tick; }
        }

        // Invoked on the non-authoritative side when the state has been updated.
        protected virtual void OnNetworkTransformStateUpdated(ref NetworkTransformState oldState, ref NetworkTransformState newState) { }

        // What NGO does on a state update from the authority: for the test
        // harnesses (internal).
        internal NetworkTransformState m_State;
        internal void ReceiveState(NetworkTransformState state)
        {
            NetworkTransformState old = m_State;
            m_State = state;
            OnNetworkTransformStateUpdated(ref old, ref state);
        }
    }
}
