// NGO's UnityTransport on Unity Transport 1.x (API reference): the debug
// simulator call is current.
namespace Unity.Netcode.Transports.UTP
{
    public class UnityTransport : Unity.Netcode.NetworkTransport
    {
        public void SetDebugSimulatorParameters(int packetDelay, int packetJitter, int dropRate) { }
    }
}
