// The Mirror client's console harness: it drives InterpLabMirror's update
// loop as Unity would, against the declared Mirror (clients_test.go).
//
//   mono Harness.exe settings URL
//     follows the session; prints "ready" once the first config is applied,
//     then "changed NAME VALUE" within a millisecond of any change to the
//     declared NetworkClient.snapshotSettings or a NetworkTransform's fields.
//   mono Harness.exe capture URL TRACE CSV
//     50 remote NetworkTransforms receive 60 s of snapshots at 30 Hz on a
//     simulated clock (each arrives 50 ms after it was sent, at the next
//     frame of a 60 fps game); the client captures them into trace TRACE, ends the
//     capture and waits for the lab to save it; CSV gets the same updates as
//     a lab trace CSV. Prints "saved" and "dropped N".
using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Threading;
using Mirror;
using UnityEngine;

public static class Harness
{
    static NetworkTransformUnreliable Spawn(uint netId)
    {
        var id = new NetworkIdentity { netId = netId };
        var nt = new NetworkTransformUnreliable { netIdentity = id, ComponentIndex = 0 };
        id.NetworkBehaviours = new NetworkBehaviour[] { nt };
        NetworkClient.spawned[netId] = id;
        return nt;
    }

    static string G(double v) { return v.ToString("G17", CultureInfo.InvariantCulture); }

    public static int Main(string[] args)
    {
        Console.SetOut(new StreamWriter(Console.OpenStandardOutput()) { AutoFlush = true });
        NetworkServer.tickRate = 60;
        NetworkServer.active = false; // a client only
        var c = new InterpLabMirror { sessionUrl = args[1], capture = args[0] == "capture" };
        return HarnessExit.Exit(args[0] == "settings" ? Settings(c) : Capture(c, args[2], args[3]));
    }

    static int Settings(InterpLabMirror c)
    {
        NetworkTransformUnreliable nt = Spawn(1);
        c.OnEnable();
        SnapshotInterpolationSettings si = NetworkClient.snapshotSettings;
        var last = new Dictionary<string, string>();
        bool ready = false;
        for (DateTime end = DateTime.UtcNow.AddSeconds(120); DateTime.UtcNow < end; Thread.Sleep(1))
        {
            c.Update();
            var now = new Dictionary<string, string>
            {
                { "bufferTimeMultiplier", G(si.bufferTimeMultiplier) },
                { "bufferLimit", si.bufferLimit.ToString(CultureInfo.InvariantCulture) },
                { "catchupSpeed", G(si.catchupSpeed) },
                { "dynamicAdjustment", si.dynamicAdjustment.ToString() },
                { "positionSensitivity", G(nt.positionSensitivity) },
                { "syncInterval", G(nt.syncInterval) },
                { "timelineOffset", nt.timelineOffset.ToString() },
            };
            foreach (var kv in now)
            {
                string old;
                if (ready && (!last.TryGetValue(kv.Key, out old) || old != kv.Value)) Console.WriteLine("changed " + kv.Key + " " + kv.Value);
            }
            last = now;
            // The session the test made has bufferLimit 40: its config is in.
            if (!ready && si.bufferLimit == 40)
            {
                ready = true;
                // A NetworkTransform spawned after the config gets its knobs
                // in its first frame.
                NetworkTransformUnreliable late = Spawn(2);
                c.Update();
                Console.WriteLine("late positionSensitivity " + G(late.positionSensitivity));
                Console.WriteLine("ready");
            }
        }
        return 0;
    }

    static int Capture(InterpLabMirror c, string trace, string csvPath)
    {
        c.traceName = trace;
        var nts = new List<NetworkTransformUnreliable>();
        for (uint e = 1; e <= 50; e++) nts.Add(Spawn(e));
        c.OnEnable();
        // Wait for the session's config (timelineOffset off: Mirror's stored
        // remote time is then the server's send time, unshifted).
        for (int i = 0; i < 5000 && nts[0].timelineOffset; i++) { c.Update(); Thread.Sleep(1); }
        if (nts[0].timelineOffset) { Console.WriteLine("no config"); return 1; }
        var csv = new StreamWriter(csvPath);
        csv.WriteLine("entity,seq,sent,arrive,x,y,z,vx,vy,vz,qx,qy,qz,qw");
        var prev = new double[50, 4]; // sent, x, y, z of each entity's previous update
        const int ticks = 60 * 30;    // 60 s of sends at 30 Hz
        int next = 0;                 // the next tick to arrive
        // Frames at 60 fps on a simulated clock: a send arrives at the first
        // frame after its delay (50 to 59 ms), stamped with that frame's time
        // as Mirror stamps NetworkTime.localTime.
        for (int f = 0; next < ticks; f++)
        {
            double frameTime = 1000 + f / 60.0;
            while (next < ticks && 1000 + next / 30.0 + 0.05 <= frameTime)
            {
                int k = next++;
                double sent = 1000 + k / 30.0;
                for (int e = 0; e < 50; e++)
                {
                    double arrive = frameTime;
                    var pos = new Vector3((float)(e + 5 * Math.Sin(k / 40.0 + e)), 0.5f * e, (float)(3 * Math.Cos(k / 25.0 - e)));
                    var rot = new Quaternion(0, (float)Math.Sin(k / 100.0), 0, (float)Math.Cos(k / 100.0));
                    nts[e].clientSnapshots.Add(sent, new TransformSnapshot(sent, arrive, pos, rot, new Vector3(1, 1, 1)));
                    while (nts[e].clientSnapshots.Count > 32) nts[e].clientSnapshots.RemoveAt(0);
                    double x = pos.x, y = pos.y, z = pos.z, vx = 0, vy = 0, vz = 0;
                    if (k > 0)
                    {
                        double dt = sent - prev[e, 0];
                        vx = (x - prev[e, 1]) / dt; vy = (y - prev[e, 2]) / dt; vz = (z - prev[e, 3]) / dt;
                    }
                    prev[e, 0] = sent; prev[e, 1] = x; prev[e, 2] = y; prev[e, 3] = z;
                    // The rotation as the game received it, Unity's floats: the
                    // lab normalises a CSV's as the client normalises what it sends.
                    csv.WriteLine(e + "," + k + "," + G(sent) + "," + G(arrive) + "," + G(x) + "," + G(y) + "," + G(z) + "," +
                        G(vx) + "," + G(vy) + "," + G(vz) + ",0," + G(rot.y) + ",0," + G(rot.w));
                }
            }
            c.Update(); // the frame: the client captures what arrived
            // A game's frames come in real time; these come faster, so the
            // loop waits when the lab has not taken about a second's worth.
            while (c.Queued() > 3000) Thread.Sleep(1);
        }
        csv.Close();
        bool saved = c.EndCapture(60000);
        Console.WriteLine(saved ? "saved" : "not saved");
        Console.WriteLine("dropped " + c.Dropped());
        c.OnDisable();
        return saved ? 0 : 1;
    }
}
