// Interp Lab's client for Unity Netcode for GameObjects 2.x (the lab's ngo
// technique is NGO 2.1.1): add InterpLabNGO to the NetworkManager's
// GameObject and use InterpLabNetworkTransform in place of NetworkTransform
// on the prefabs to tune and capture, with clients/unity's InterpLabLink.cs
// in the project. It follows a lab session and applies the ngo technique's
// knobs, in the names and units of `lab export -format ngo`, to what NGO
// reads at run time (NetworkTimeSystem's properties, Time.maximumDeltaTime,
// each NetworkTransform's), and captures every state update a remote
// NetworkTransform receives into the lab (docs/capture-protocol.md). See
// clients/ngo/README.md.
using System.Collections.Generic;
using InterpLab;
using Unity.Netcode;
using Unity.Netcode.Components;
using UnityEngine;

public class InterpLabNGO : InterpLabClient
{
    [Tooltip("NGO's version, shown on the session's page")]
    public string ngoVersion = "2.1.1";

    protected override string Engine { get { return "ngo"; } }
    protected override string EngineVersion { get { return ngoVersion; } }

    // Current is the enabled instance, which InterpLabNetworkTransforms report to.
    public static InterpLabNGO Current { get; private set; }

    // NGO 2.1.1's own values of the knobs it keeps private or hard-codes.
    static readonly Dictionary<string, double> fixedByNGO = new Dictionary<string, double>
    {
        { "ngo.maximumInterpolationTime", 0.1 }, { "ngo.ticksAgo", 2 }, { "ngo.approvalRttSec", 0.15 },
    };

    readonly Dictionary<string, object> applied = new Dictionary<string, object>();
    Dictionary<string, object> settings;
    readonly HashSet<InterpLabNetworkTransform> transforms = new HashSet<InterpLabNetworkTransform>();
    NetworkTimeSystem timeSystem; // the one the time knobs were set on
    static readonly string[] timeKnobs = { "ngo.serverBufferSec", "ngo.localBufferSec", "ngo.hardResetThresholdSec", "ngo.adjustmentRatio" };
    static readonly string[] transformKnobs = { "ngo.positionThreshold", "ngo.useUnreliableDeltas", "ngo.maxInterpolationBound" };

    public override void OnEnable()
    {
        base.OnEnable();
        if (link != null) Current = this;
    }

    public override void OnDisable()
    {
        base.OnDisable();
        if (Current == this) Current = null;
    }

    public void Update()
    {
        if (link == null) return;
        Dictionary<string, object> s;
        bool fresh = link.TakeSettings(out s) && s != null;
        if (fresh) settings = s;
        if (settings == null) return;
        // NGO makes a new time system each time the client starts, with its
        // own values: its knobs are set again on the new one.
        NetworkManager nm = NetworkManager.Singleton;
        NetworkTimeSystem ts = nm == null ? null : nm.NetworkTimeSystem;
        if (ts != timeSystem)
        {
            timeSystem = ts;
            foreach (string name in timeKnobs) applied.Remove(name);
        }
        ApplyGlobal();
        if (fresh) foreach (InterpLabNetworkTransform nt in transforms) ApplyTo(nt);
    }

    internal void Spawned(InterpLabNetworkTransform nt)
    {
        transforms.Add(nt);
        if (settings != null) ApplyTo(nt);
    }

    internal void Despawned(InterpLabNetworkTransform nt) { transforms.Remove(nt); }

    // Record adds a remote NetworkTransform's state update to the capture.
    internal void Record(CaptureUpdate u)
    {
        if (link == null || !capture) return;
        if (!link.Capturing)
        {
            // The first update: the network runs, so its tick rate is the
            // game's. NGO's send times are ticks at that rate.
            NetworkManager nm = NetworkManager.Singleton;
            uint tickRate = nm != null && nm.NetworkConfig != null ? nm.NetworkConfig.TickRate : 0;
            if (tickRate == 0) return;
            link.StartCapture(tickRate, tickRate);
        }
        link.Record(u);
    }

    bool Changed(string name, out object value)
    {
        if (settings == null || !settings.TryGetValue(name, out value)) { value = null; return false; }
        object old;
        if (applied.TryGetValue(name, out old) && Equals(old, value)) return false;
        applied[name] = value;
        return true;
    }

    static void Refuse(string name, object value, string why)
    {
        Log("InterpLab: refused " + name + " = " + value + ": " + why);
    }

    void ApplyGlobal()
    {
        NetworkManager nm = NetworkManager.Singleton;
        object v;
        if (Changed("ngo.tickRate", out v))
        {
            if (!(v is double)) Refuse("ngo.tickRate", v, "not a number");
            else if (nm == null || nm.NetworkConfig == null) Refuse("ngo.tickRate", v, "no NetworkManager");
            else if (nm.NetworkConfig.TickRate == (uint)(double)v) { } // the game's already
            else if (nm.IsListening)
                Refuse("ngo.tickRate", v, "NGO reads NetworkConfig.TickRate when the network starts, and the server and every client must agree: set it before StartServer/StartClient (InterpLabNGOSettings.BeforeStart) and restart");
            else
            {
                nm.NetworkConfig.TickRate = (uint)(double)v;
                Log("InterpLab: ngo.tickRate = " + v + " (NetworkConfig.TickRate, from the next start)");
            }
        }
        if (Changed("ngo.maximumDeltaTime", out v))
        {
            if (v is double) { Time.maximumDeltaTime = (float)(double)v; Log("InterpLab: ngo.maximumDeltaTime = " + v + " s (Time.maximumDeltaTime)"); }
            else Refuse("ngo.maximumDeltaTime", v, "not a number");
        }
        foreach (string name in timeKnobs)
        {
            if (timeSystem == null || !Changed(name, out v)) continue; // set once the client starts
            NetworkTimeSystem ts = timeSystem;
            if (!(v is double)) { Refuse(name, v, "not a number"); continue; }
            double d = (double)v;
            switch (name)
            {
                case "ngo.serverBufferSec": ts.ServerBufferSec = d; break;
                case "ngo.localBufferSec": ts.LocalBufferSec = d; break;
                case "ngo.hardResetThresholdSec": ts.HardResetThresholdSec = d; break;
                case "ngo.adjustmentRatio": ts.AdjustmentRatio = d; break;
            }
            Log("InterpLab: " + name + " = " + v + " (NetworkTimeSystem." + char.ToUpperInvariant(name[4]) + name.Substring(5) + ")");
        }
        foreach (var kv in fixedByNGO)
        {
            if (!Changed(kv.Key, out v)) continue;
            if (v is double && (float)(double)v == (float)kv.Value) continue;
            Refuse(kv.Key, v, "fixed by NGO 2.1.1 at " + kv.Value + " (private to NetworkTransform, or hard-coded): the game keeps " + kv.Value + " unless the package is forked");
        }
        foreach (string name in transformKnobs)
            if (Changed(name, out v)) Log("InterpLab: " + name + " = " + v + " (each InterpLabNetworkTransform)");
    }

    // ApplyTo sets one NetworkTransform's knobs, as the export's ApplyTo does.
    void ApplyTo(NetworkTransform nt)
    {
        object v;
        if (settings.TryGetValue("ngo.positionThreshold", out v) && v is double) nt.PositionThreshold = (float)(double)v;
        if (settings.TryGetValue("ngo.useUnreliableDeltas", out v) && v is bool) nt.UseUnreliableDeltas = (bool)v;
        if (settings.TryGetValue("ngo.maxInterpolationBound", out v) && v is double) nt.SetMaxInterpolationBound((float)(double)v);
    }
}

// A NetworkTransform the lab tunes and captures: use it in place of
// NetworkTransform on the prefabs the lab tuned.
public class InterpLabNetworkTransform : NetworkTransform
{
    public override void OnNetworkSpawn()
    {
        base.OnNetworkSpawn();
        if (InterpLabNGO.Current != null) InterpLabNGO.Current.Spawned(this);
    }

    public override void OnNetworkDespawn()
    {
        if (InterpLabNGO.Current != null) InterpLabNGO.Current.Despawned(this);
        base.OnNetworkDespawn();
    }

    // NGO calls this on the non-authoritative side as each state update
    // arrives: the capture records its tick (the authority's send tick),
    // the local arrival time and the position (and rotation). A state
    // without a position change (a rotation or scale only) is not recorded.
    protected override void OnNetworkTransformStateUpdated(ref NetworkTransformState oldState, ref NetworkTransformState newState)
    {
        base.OnNetworkTransformStateUpdated(ref oldState, ref newState);
        InterpLabNGO lab = InterpLabNGO.Current;
        if (lab == null || !newState.HasPositionChange) return;
        Vector3 p = newState.GetPosition();
        Quaternion r = newState.GetRotation();
        bool rot = newState.HasRotAngleChange && (r.x != 0 || r.y != 0 || r.z != 0 || r.w != 0);
        uint entity = (uint)NetworkObjectId | ((uint)NetworkBehaviourId << 24);
        lab.Record(new CaptureUpdate
        {
            entity = entity, sent = newState.GetNetworkTick(), arrive = Time.realtimeSinceStartupAsDouble,
            x = p.x, y = p.y, z = p.z, hasRotation = rot, qx = r.x, qy = r.y, qz = r.z, qw = r.w,
        });
    }
}
