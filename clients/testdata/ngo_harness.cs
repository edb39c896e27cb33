// The NGO client's console harness: it drives InterpLabNGO's update loop as
// Unity would, against the declared NGO 2.1.1 (clients_test.go).
//
//   mono Harness.exe settings URL [TOKEN]
//     a started client with one spawned InterpLabNetworkTransform follows
//     the session; prints "ready" once the first config is applied, then
//     "changed NAME VALUE" within a millisecond of any change to the declared
//     NetworkTimeSystem's properties, Time.maximumDeltaTime or the
//     transform's fields.
//   mono Harness.exe capture URL TRACE CSV
//     50 remote InterpLabNetworkTransforms receive 60 s of state updates at
//     30 Hz (tick rate 30) on a simulated clock, each 50 ms after its tick,
//     at the next frame of a 60 fps game; the client captures them into trace
//     TRACE, ends the capture and waits for the lab to save it; CSV gets the
//     same updates as a lab trace CSV. Prints "saved" and "dropped N".
using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Threading;
using Unity.Netcode;
using Unity.Netcode.Components;
using UnityEngine;

public static class Harness
{
    static string G(double v) { return v.ToString("G17", CultureInfo.InvariantCulture); }

    public static int Main(string[] args)
    {
        Console.SetOut(new StreamWriter(Console.OpenStandardOutput()) { AutoFlush = true });
        NetworkManager.Singleton = new NetworkManager
        {
            NetworkConfig = new NetworkConfig { TickRate = 30 },
            NetworkTimeSystem = new NetworkTimeSystem { ServerBufferSec = 0.05, LocalBufferSec = 1.0 / 30, HardResetThresholdSec = 0.2, AdjustmentRatio = 0.01 },
            IsClient = true, IsListening = true,
        };
        var c = new InterpLabNGO { sessionUrl = args[1], capture = args[0] == "capture" };
        if (args[0] == "settings" && args.Length > 2) c.token = args[2];
        return HarnessExit.Exit(args[0] == "settings" ? Settings(c) : Capture(c, args[2], args[3]));
    }

    static InterpLabNetworkTransform Spawn(ulong id)
    {
        var nt = new InterpLabNetworkTransform { NetworkObjectId = id };
        nt.OnNetworkSpawn();
        return nt;
    }

    static int Settings(InterpLabNGO c)
    {
        c.OnEnable();
        InterpLabNetworkTransform nt = Spawn(1);
        NetworkTimeSystem ts = NetworkManager.Singleton.NetworkTimeSystem;
        var last = new Dictionary<string, string>();
        bool ready = false;
        for (DateTime end = DateTime.UtcNow.AddSeconds(120); DateTime.UtcNow < end; Thread.Sleep(1))
        {
            c.Update();
            var now = new Dictionary<string, string>
            {
                { "ServerBufferSec", G(ts.ServerBufferSec) },
                { "LocalBufferSec", G(ts.LocalBufferSec) },
                { "HardResetThresholdSec", G(ts.HardResetThresholdSec) },
                { "AdjustmentRatio", G(ts.AdjustmentRatio) },
                { "maximumDeltaTime", G(Time.maximumDeltaTime) },
                { "PositionThreshold", G(nt.PositionThreshold) },
                { "UseUnreliableDeltas", nt.UseUnreliableDeltas.ToString() },
            };
            foreach (var kv in now)
            {
                string old;
                if (ready && (!last.TryGetValue(kv.Key, out old) || old != kv.Value)) Console.WriteLine("changed " + kv.Key + " " + kv.Value);
            }
            last = now;
            // The session the test made has hardResetThresholdSec 0.35.
            if (!ready && ts.HardResetThresholdSec == 0.35) { ready = true; Console.WriteLine("ready"); }
        }
        return 0;
    }

    static int Capture(InterpLabNGO c, string trace, string csvPath)
    {
        c.traceName = trace;
        c.OnEnable();
        var nts = new List<InterpLabNetworkTransform>();
        for (ulong e = 1; e <= 50; e++) nts.Add(Spawn(e));
        var csv = new StreamWriter(csvPath);
        csv.WriteLine("entity,seq,sent,arrive,x,y,z,vx,vy,vz,qx,qy,qz,qw");
        var prev = new double[50, 4];
        const int first = 30000, ticks = 60 * 30; // ticks 30000.. at 30 Hz: from 1000 s
        int next = 0;
        for (int f = 0; next < ticks; f++)
        {
            double frameTime = 1000 + f / 60.0;
            Time.realtimeSinceStartupAsDouble = frameTime;
            while (next < ticks && (first + next) / 30.0 + 0.05 <= frameTime)
            {
                int k = next++;
                double sent = (first + k) / 30.0;
                for (int e = 0; e < 50; e++)
                {
                    var pos = new Vector3((float)(e + 5 * Math.Sin(k / 40.0 + e)), 0.5f * e, (float)(3 * Math.Cos(k / 25.0 - e)));
                    var rot = new Quaternion(0, (float)Math.Sin(k / 100.0), 0, (float)Math.Cos(k / 100.0));
                    nts[e].ReceiveState(new NetworkTransform.NetworkTransformState
                    {
                        m_Position = pos, m_Rotation = rot, m_Tick = first + k, m_HasPosition = true, m_HasRotation = true,
                    });
                    double x = pos.x, y = pos.y, z = pos.z, vx = 0, vy = 0, vz = 0;
                    if (k > 0)
                    {
                        double dt = sent - prev[e, 0];
                        vx = (x - prev[e, 1]) / dt; vy = (y - prev[e, 2]) / dt; vz = (z - prev[e, 3]) / dt;
                    }
                    prev[e, 0] = sent; prev[e, 1] = x; prev[e, 2] = y; prev[e, 3] = z;
                    // The rotation as the game received it, Unity's floats: the
                    // lab normalises a CSV's as the client normalises what it sends.
                    csv.WriteLine(e + "," + (first + k) + "," + G(sent) + "," + G(frameTime) + "," + G(x) + "," + G(y) + "," + G(z) + "," +
                        G(vx) + "," + G(vy) + "," + G(vz) + ",0," + G(rot.y) + ",0," + G(rot.w));
                }
            }
            c.Update();
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
