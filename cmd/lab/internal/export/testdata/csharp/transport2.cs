// Unity Transport 2.3 declarations (API reference) and NGO 2.x's
// UnityTransport on it, where the 1.x debug simulator call is obsolete.
using System;

namespace Unity.Networking.Transport
{
    public struct NetworkSettings { }
    public struct NetworkPipeline { }
    public struct NetworkDriver : IDisposable
    {
        public NetworkSettings CurrentSettings { get { return default(NetworkSettings); } }
        public void Dispose() { }
    }
    public interface INetworkParameter
    {
        bool Validate();
    }
    [Serializable]
    public struct NetworkSimulatorParameter : INetworkParameter
    {
        public float ReceivePacketLossPercent;
        public float SendPacketLossPercent;
        public uint SendDelayMS;
        public uint SendJitterMS;
        public float SendDuplicatePercent;
        public bool Validate() { return true; }
    }
    public static class NetworkSimulatorParameterExtensions
    {
        // WithNetworkSimulatorParameters(this ref NetworkSettings, ...) is left
        // out: the exports do not call it, and mcs has no ref extensions.
        public static void ModifyNetworkSimulatorParameters(this NetworkDriver driver, NetworkSimulatorParameter newParams) { }
    }
}

namespace Unity.Netcode.Transports.UTP
{
    using Unity.Networking.Transport;

    public interface INetworkStreamDriverConstructor
    {
        void CreateDriver(UnityTransport transport, out NetworkDriver driver,
            out NetworkPipeline unreliableFragmentedPipeline,
            out NetworkPipeline unreliableSequencedFragmentedPipeline,
            out NetworkPipeline reliableSequencedPipeline);
    }

    public class UnityTransport : Unity.Netcode.NetworkTransport, INetworkStreamDriverConstructor
    {
        public static INetworkStreamDriverConstructor s_DriverConstructor;

        public void CreateDriver(UnityTransport transport, out NetworkDriver driver,
            out NetworkPipeline unreliableFragmentedPipeline,
            out NetworkPipeline unreliableSequencedFragmentedPipeline,
            out NetworkPipeline reliableSequencedPipeline)
        {
            driver = default(NetworkDriver);
            unreliableFragmentedPipeline = unreliableSequencedFragmentedPipeline = reliableSequencedPipeline = default(NetworkPipeline);
        }

        [Obsolete("DebugSimulator is no longer supported and has no effect. Use Network Simulator from the Multiplayer Tools package.", false)]
        public void SetDebugSimulatorParameters(int packetDelay, int packetJitter, int dropRate) { }
    }
}
