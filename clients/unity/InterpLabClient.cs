// InterpLabClient is what the Mirror and NGO components share: the lab
// session they follow, the capture's options and the link's lifetime. Each
// engine's component derives from it and names its engine and version.
using InterpLab;
using UnityEngine;

public abstract class InterpLabClient : MonoBehaviour
{
    [Tooltip("The lab session's page, http://localhost:8080/s/ID")]
    public string sessionUrl = "";
    [Tooltip("The lab's access token, when it has one")]
    public string token = "";
    [Tooltip("Capture what every remote transform receives into the lab")]
    public bool capture = true;
    [Tooltip("The trace the capture becomes (a-z 0-9 . _ -); empty for the lab's name")]
    public string traceName = "";
    [Tooltip("Most updates held while the lab is slower than the game; beyond, the oldest are dropped and counted")]
    public int bufferSize = 65536;

    // link is the lab session's link while the component is enabled.
    protected LabLink link;

    // Engine and EngineVersion name the game's netcode on the session's page.
    protected abstract string Engine { get; }
    protected abstract string EngineVersion { get; }

    public virtual void OnEnable()
    {
        if (string.IsNullOrEmpty(sessionUrl))
        {
            Debug.LogWarning("InterpLab: no sessionUrl: set the lab session's page (http://localhost:8080/s/ID)");
            enabled = false;
            return;
        }
        link = new LabLink(sessionUrl, token, Engine, EngineVersion, traceName, bufferSize, Log);
        link.Start();
    }

    public virtual void OnDisable()
    {
        if (link != null) link.Stop();
        link = null;
    }

    // OnApplicationQuit ends the capture: the lab saves it as a trace.
    public void OnApplicationQuit()
    {
        if (link != null && capture) link.EndCapture(2000);
    }

    // EndCapture sends what is queued, ends the capture and waits at most
    // waitMs for the lab to save it as a trace: call it when a match ends.
    public bool EndCapture(int waitMs) { return link != null && link.EndCapture(waitMs); }

    // Queued is how many captured updates wait to be sent.
    public int Queued() { return link == null ? 0 : link.Queued; }

    // Dropped is how many captured updates were dropped (the lab was slower
    // than the game for longer than bufferSize holds).
    public long Dropped() { return link == null ? 0 : link.Dropped; }

    // Log is Debug.Log, one line a message.
    protected static void Log(string line) { Debug.Log(line); }
}
