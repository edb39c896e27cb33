// The end the C# test harnesses share: clients_test.go and fixture_test.go
// compile this file into every Harness.exe.
using System;
using System.Runtime.InteropServices;

public static class HarnessExit
{
    // Exit flushes the console and ends the process with code, which it
    // returns for Main to return (it never gets the chance). The runtime's
    // own exit is skipped: mono 6.8 now and then aborts while shutting down
    // with a WebSocket receive still pending on the link's background thread
    // (seen once in about 16 runs, after the capture was saved and the
    // harness had said so). A game never ends through a console runtime's
    // exit; the harness ends as a killed game.
    public static int Exit(int code)
    {
        Console.Out.Flush();
        _exit(code);
        return code;
    }

    [DllImport("libc", EntryPoint = "_exit")]
    static extern void _exit(int code);
}
