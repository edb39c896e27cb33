// The Unity link's console harness (clients_test.go): it records N updates
// of 10 entities into a capture as fast as a game's frames could, with a
// queue of BUFFER updates, then ends the capture.
//
//   mono Harness.exe URL N BUFFER
//
// Prints "recorded in MS ms" (how long the N Record calls took: the game's
// thread never waits for the lab), then "saved" or "not saved", and
// "dropped D".
using System;
using System.Diagnostics;
using System.IO;
using InterpLab;

public static class Harness
{
    public static int Main(string[] args)
    {
        Console.SetOut(new StreamWriter(Console.OpenStandardOutput()) { AutoFlush = true });
        int n = int.Parse(args[1]), buffer = int.Parse(args[2]);
        var link = new LabLink(args[0], "", "test", "1.0", "", buffer, line => Console.WriteLine(line));
        link.Start();
        link.StartCapture(30, 0);
        var sw = Stopwatch.StartNew();
        for (int i = 0; i < n; i++)
        {
            double t = 1000 + i / 300.0;
            link.Record(new CaptureUpdate { entity = (uint)(i % 10), sent = t, arrive = t + 0.05, x = i, y = -i, z = 0.5 });
        }
        Console.WriteLine("recorded in " + sw.ElapsedMilliseconds + " ms");
        bool saved = link.EndCapture(60000);
        Console.WriteLine(saved ? "saved" : "not saved");
        Console.WriteLine("dropped " + link.Dropped);
        link.Stop();
        return HarnessExit.Exit(saved ? 0 : 1);
    }
}
