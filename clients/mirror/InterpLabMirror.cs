// Interp Lab's client for Mirror (v96.11.0, commit c885a6a4): add this
// component to the NetworkManager's GameObject, with clients/unity's
// InterpLabLink.cs in the project. It follows a lab session and applies the
// mirror technique's knobs, in the names and units of `lab export -format
// mirror`, to what Mirror reads at run time (the NetworkManager's and
// NetworkClient's snapshot interpolation settings, each NetworkTransform's
// fields), and captures every remote NetworkTransform's snapshots into the
// lab (docs/capture-protocol.md). See clients/mirror/README.md.
using System;
using System.Collections.Generic;
using InterpLab;
using Mirror;
using UnityEngine;

// Early, so that it sees the snapshots Mirror inserted this frame before the
// NetworkTransforms' own Update consumes them.
[DefaultExecutionOrder(-10000)]
public class InterpLabMirror : InterpLabClient
{
    [Tooltip("Mirror's version, shown on the session's page")]
    public string mirrorVersion = "96.11.0";

    protected override string Engine { get { return "mirror"; } }
    protected override string EngineVersion { get { return mirrorVersion; } }

    readonly Dictionary<string, object> applied = new Dictionary<string, object>();
    Dictionary<string, object> settings; // the newest config's
    int generation;                      // settings taken so far

    // What the capture has seen of each NetworkTransform.
    class Seen
    {
        public readonly HashSet<double> times = new HashSet<double>();
        public readonly Queue<double> order = new Queue<double>();
        public int generation = -1; // the settings generation its fields have
        public int frame;           // the last frame it was visited
    }
    readonly Dictionary<NetworkTransformBase, Seen> transforms = new Dictionary<NetworkTransformBase, Seen>();
    int frame;

    public void Update()
    {
        if (link == null) return;
        Dictionary<string, object> s;
        if (link.TakeSettings(out s) && s != null)
        {
            settings = s;
            generation++;
            ApplyGlobal();
        }
        frame++;
        foreach (NetworkIdentity identity in NetworkClient.spawned.Values)
        {
            if (identity == null || identity.NetworkBehaviours == null) continue;
            foreach (NetworkBehaviour b in identity.NetworkBehaviours)
            {
                var nt = b as NetworkTransformBase;
                if (nt == null) continue;
                Seen seen;
                if (!transforms.TryGetValue(nt, out seen)) transforms[nt] = seen = new Seen();
                seen.frame = frame;
                if (settings != null && seen.generation != generation)
                {
                    ApplyTransform(nt);
                    seen.generation = generation;
                }
                if (capture) Capture(nt, seen);
            }
        }
        if (frame % 60 == 0) Forget();
    }

    // Forget drops what it kept of NetworkTransforms no longer spawned.
    void Forget()
    {
        var gone = new List<NetworkTransformBase>();
        foreach (var kv in transforms) if (kv.Value.frame != frame) gone.Add(kv.Key);
        foreach (var nt in gone) transforms.Remove(nt);
    }

    // Capture records the snapshots of nt not recorded yet: Mirror's
    // remote time less the shift NetworkTransform adds to it (so the lab
    // gets the server's send time), the local arrival time, the position
    // and the rotation.
    void Capture(NetworkTransformBase nt, Seen seen)
    {
        if (nt.clientSnapshots.Count == 0) return;
        double interval = NetworkServer.sendInterval;
        uint mult = nt.sendIntervalMultiplier;
        double shift = interval * (mult - 1) + (nt.timelineOffset ? interval * mult : 0);
        uint entity = nt.ComponentIndex == 0 ? nt.netId : nt.netId | ((uint)nt.ComponentIndex << 24);
        // By index: no enumerator to collect each frame.
        IList<double> keys = nt.clientSnapshots.Keys;
        IList<TransformSnapshot> values = nt.clientSnapshots.Values;
        for (int i = 0; i < keys.Count; i++)
        {
            double key = keys[i];
            if (seen.times.Contains(key)) continue;
            seen.times.Add(key);
            seen.order.Enqueue(key);
            if (seen.order.Count > 256) seen.times.Remove(seen.order.Dequeue());
            TransformSnapshot snap = values[i];
            // Mirror's send times are seconds; the rate shown is its send rate.
            if (!link.Capturing) link.StartCapture(NetworkServer.sendRate, 0);
            var r = snap.rotation;
            bool rot = r.x != 0 || r.y != 0 || r.z != 0 || r.w != 0;
            link.Record(new CaptureUpdate
            {
                entity = entity, sent = snap.remoteTime - shift, arrive = snap.localTime,
                x = snap.position.x, y = snap.position.y, z = snap.position.z,
                hasRotation = rot, qx = r.x, qy = r.y, qz = r.z, qw = r.w,
            });
        }
    }

    // The snapshot interpolation settings Mirror reads: NetworkManager
    // assigns its own to NetworkClient.snapshotSettings every frame, so both
    // objects get the knobs.
    static IEnumerable<SnapshotInterpolationSettings> SnapshotSettings()
    {
        var nm = NetworkManager.singleton;
        if (nm != null && nm.snapshotSettings != null) yield return nm.snapshotSettings;
        if (NetworkClient.snapshotSettings != null && (nm == null || nm.snapshotSettings != NetworkClient.snapshotSettings))
            yield return NetworkClient.snapshotSettings;
    }

    // Changed returns the value of a knob of the newest settings when it
    // differs from the one applied (or refused) last.
    bool Changed(string name, out object value)
    {
        if (settings == null || !settings.TryGetValue(name, out value)) { value = null; return false; }
        object old;
        if (applied.TryGetValue(name, out old) && Equals(old, value)) return false;
        applied[name] = value;
        return true;
    }

    void Refuse(string name, object value, string why)
    {
        Log("InterpLab: refused " + name + " = " + value + ": " + why);
    }

    // ApplyGlobal applies the knobs of the snapshot interpolation settings
    // and the send rate.
    void ApplyGlobal()
    {
        object v;
        if (Changed("mirror.sendRate", out v))
        {
            if (!(v is double)) Refuse("mirror.sendRate", v, "not a number");
            else if ((int)(double)v == NetworkServer.sendRate) { } // the game's already
            else if (!NetworkServer.active)
                Refuse("mirror.sendRate", v, "the server's rate: this game is a client (NetworkServer.active is false); set NetworkManager.sendRate on the server and every client, then restart");
            else
            {
                if (NetworkManager.singleton != null) NetworkManager.singleton.sendRate = (int)(double)v;
                else NetworkServer.tickRate = (int)(double)v;
                Log("InterpLab: mirror.sendRate = " + v + " Hz (NetworkManager.sendRate)");
            }
        }
        foreach (string name in new[] { "mirror.bufferTimeMultiplier", "mirror.catchupSpeed", "mirror.slowdownSpeed",
            "mirror.bufferLimit", "mirror.driftEmaDuration", "mirror.deliveryTimeEmaDuration",
            "mirror.catchupNegativeThreshold", "mirror.catchupPositiveThreshold", "mirror.dynamicAdjustmentTolerance", "mirror.dynamicAdjustment" })
        {
            if (!Changed(name, out v)) continue;
            string field = name.Substring("mirror.".Length);
            bool isBool = field == "dynamicAdjustment";
            if (isBool ? !(v is bool) : !(v is double)) { Refuse(name, v, isBool ? "not true or false" : "not a number"); continue; }
            foreach (SnapshotInterpolationSettings si in SnapshotSettings()) SetSnapshotField(si, field, v);
            string note = "";
            if (field == "bufferTimeMultiplier")
            {
                // Mirror copies it to NetworkClient.bufferTimeMultiplier when
                // it connects, and dynamic adjustment overwrites that copy.
                bool dynamic = false;
                foreach (SnapshotInterpolationSettings si in SnapshotSettings()) dynamic = si.dynamicAdjustment;
                if (!dynamic) NetworkClient.bufferTimeMultiplier = (double)v;
                else note = " (dynamicAdjustment is on: Mirror sets the multiplier itself)";
            }
            if (field == "driftEmaDuration" || field == "deliveryTimeEmaDuration")
                note = " (Mirror sizes this average when the client connects: it applies from the next connection)";
            Log("InterpLab: " + name + " = " + v + " (NetworkClient.snapshotSettings." + field + ")" + note);
        }
        foreach (string name in new[] { "mirror.sendIntervalMultiplier", "mirror.timelineOffset", "mirror.onlySyncOnChange",
            "mirror.bufferResetMultiplier", "mirror.positionSensitivity" })
        {
            if (Changed(name, out v)) Log("InterpLab: " + name + " = " + v + " (each NetworkTransform)");
        }
    }

    static void SetSnapshotField(SnapshotInterpolationSettings si, string field, object v)
    {
        double d = v is double ? (double)v : 0;
        switch (field)
        {
            case "bufferTimeMultiplier": si.bufferTimeMultiplier = d; break;
            case "bufferLimit": si.bufferLimit = (int)d; break;
            case "catchupNegativeThreshold": si.catchupNegativeThreshold = (float)d; break;
            case "catchupPositiveThreshold": si.catchupPositiveThreshold = (float)d; break;
            case "catchupSpeed": si.catchupSpeed = d; break;
            case "slowdownSpeed": si.slowdownSpeed = d; break;
            case "driftEmaDuration": si.driftEmaDuration = (int)d; break;
            case "dynamicAdjustment": si.dynamicAdjustment = (bool)v; break;
            case "dynamicAdjustmentTolerance": si.dynamicAdjustmentTolerance = (float)d; break;
            case "deliveryTimeEmaDuration": si.deliveryTimeEmaDuration = (int)d; break;
        }
    }

    // ApplyTransform sets one NetworkTransform's knobs, as the export's
    // Configure does: syncInterval from sendIntervalMultiplier and the send
    // rate, then its fields.
    void ApplyTransform(NetworkTransformBase nt)
    {
        object mult, rate, v;
        if (settings.TryGetValue("mirror.sendIntervalMultiplier", out mult) && mult is double &&
            settings.TryGetValue("mirror.sendRate", out rate) && rate is double)
            nt.syncInterval = (double)mult <= 1 ? 0 : (float)((double)mult / (double)rate);
        if (settings.TryGetValue("mirror.timelineOffset", out v) && v is bool) nt.timelineOffset = (bool)v;
        if (settings.TryGetValue("mirror.onlySyncOnChange", out v) && v is bool) nt.onlySyncOnChange = (bool)v;
        var u = nt as NetworkTransformUnreliable;
        if (u == null) return;
        if (settings.TryGetValue("mirror.bufferResetMultiplier", out v) && v is double) u.bufferResetMultiplier = (float)(double)v;
        if (settings.TryGetValue("mirror.positionSensitivity", out v) && v is double) u.positionSensitivity = (float)(double)v;
    }
}
