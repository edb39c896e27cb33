// Mirror declarations the exports use: public fields of Mirror (commit c885a6a4).
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

    public class NetworkBehaviour : UnityEngine.MonoBehaviour
    {
        public float syncInterval = 0;
    }
    public abstract class NetworkTransformBase : NetworkBehaviour
    {
        public bool onlySyncOnChange = true;
        public bool timelineOffset = true;
    }
    public class NetworkTransformUnreliable : NetworkTransformBase
    {
        public float bufferResetMultiplier = 3;
        public float positionSensitivity = 0.01f;
    }
}
