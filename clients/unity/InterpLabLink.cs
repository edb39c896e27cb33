// Interp Lab's link for Unity games, shared by the Mirror (clients/mirror)
// and Netcode for GameObjects (clients/ngo) clients. It follows a lab
// session's settings on /ws/sessions/{id} (the live sync of `lab follow`)
// and streams a capture on /ws/sessions/{id}/capture (docs/capture-protocol.md,
// version 1), each on a background thread of its own: the game's thread only
// takes the newest settings (TakeSettings) and adds updates to a bounded
// queue (Record), and never waits for the network.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Net.WebSockets;
using System.Text;
using System.Threading;

namespace InterpLab
{
    // One entity update the game received, for the capture.
    public struct CaptureUpdate
    {
        public uint entity;        // the game's id for the entity
        public double sent;        // the sender's send time, s (or its tick, with a tick time base)
        public double arrive;      // when this client received it, s, on its own clock
        public double x, y, z;     // position, m
        public bool hasRotation;   // a rotation follows
        public double qx, qy, qz, qw;
    }

    public sealed class LabLink
    {
        // Protocol is the capture protocol version this link speaks.
        public const int Protocol = 1;
        // ClientName is this client's name and version, sent in its hello.
        public const string ClientName = "interplab-unity/1.0";

        const int MinWaitMs = 500, MaxWaitMs = 30000; // reconnection backoff, doubling
        const int MaxTextBytes = 1 << 20;              // largest config message read
        const int FlushMs = 50;                        // a batch goes out when full or this old

        readonly Uri settingsUri, captureUri;
        readonly string token, engine, version, traceName;
        string timeBase;
        double rate, tickRate;
        readonly Action<string> log;
        readonly Random jitter = new Random();
        volatile bool stopping;
        Thread settingsThread, captureThread;

        // The newest settings, from the settings thread to the game's.
        readonly object settingsLock = new object();
        Dictionary<string, object> latest;
        bool fresh;

        // The capture queue: a ring of updates not yet sent; the oldest is
        // dropped when it is full.
        readonly object queueLock = new object();
        readonly CaptureUpdate[] ring;
        int head, count;
        long dropped;
        bool ending, ended;
        string captureId;

        // LabLink follows the session whose page is sessionUrl
        // (http://host:port/s/ID) with the lab's token ("" for none). engine,
        // version: the netcode library and its version; traceName: the trace
        // the capture becomes ("" for the lab's default); bufferSize: the
        // most updates held while the lab is slower than the game; log: one
        // line each (Debug.Log in a game).
        public LabLink(string sessionUrl, string token, string engine, string version,
            string traceName, int bufferSize, Action<string> log)
        {
            var u = new Uri(sessionUrl);
            string scheme = u.Scheme == "https" || u.Scheme == "wss" ? "wss" : "ws";
            string path = u.AbsolutePath.TrimEnd('/');
            int s = path.LastIndexOf("/s/", StringComparison.Ordinal);
            int w = path.LastIndexOf("/ws/sessions/", StringComparison.Ordinal);
            string prefix, id;
            if (w >= 0) { prefix = path.Substring(0, w); id = path.Substring(w + "/ws/sessions/".Length).Split('/')[0]; }
            else if (s >= 0) { prefix = path.Substring(0, s); id = path.Substring(s + 3).Split('/')[0]; }
            else throw new ArgumentException("InterpLab: session URL " + sessionUrl + ": want http://host:port/s/ID");
            string baseUri = scheme + "://" + u.Authority + prefix + "/ws/sessions/" + id;
            settingsUri = new Uri(baseUri + "?engine=" + Uri.EscapeDataString(engine) + "&version=" + Uri.EscapeDataString(version) +
                "&client=" + Uri.EscapeDataString(ClientName));
            captureUri = new Uri(baseUri + "/capture");
            this.token = token ?? "";
            this.engine = engine;
            this.version = version;
            this.traceName = traceName ?? "";
            this.log = log;
            ring = new CaptureUpdate[Math.Max(1, bufferSize)];
        }

        // Start starts following the settings.
        public void Start()
        {
            settingsThread = new Thread(FollowSettings) { IsBackground = true, Name = "InterpLab settings" };
            settingsThread.Start();
        }

        // StartCapture starts the capture, once (later calls do nothing):
        // rate is the snapshots per entity per second the game expects (the
        // page shows it); tickRate > 0 says the updates' send times are the
        // sender's ticks at that rate (NGO), 0 that they are seconds
        // (Mirror). A client calls it when the network runs, so that the
        // tick rate is the one the game uses.
        public void StartCapture(double rate, double tickRate)
        {
            lock (queueLock)
            {
                if (captureThread != null) return;
                this.rate = Math.Min(1000, Math.Max(0.001, rate)); // the protocol's (0, 1000]
                this.tickRate = tickRate;
                timeBase = tickRate > 0 ? "ticks" : "seconds";
                captureThread = new Thread(StreamCapture) { IsBackground = true, Name = "InterpLab capture" };
                captureThread.Start();
            }
        }

        // Capturing says whether StartCapture has run.
        public bool Capturing { get { lock (queueLock) return captureThread != null; } }

        // TakeSettings returns the newest config's settings when there is one
        // not taken yet: {"mirror.sendRate": 60.0, "mirror.dynamicAdjustment": true, ...}.
        public bool TakeSettings(out Dictionary<string, object> settings)
        {
            lock (settingsLock)
            {
                settings = latest;
                bool f = fresh;
                fresh = false;
                return f;
            }
        }

        // Record adds an update to the capture without waiting: when the
        // queue is full the oldest update is dropped and counted.
        public void Record(CaptureUpdate u)
        {
            lock (queueLock)
            {
                if (ending) return;
                if (count == ring.Length)
                {
                    head = (head + 1) % ring.Length;
                    count--;
                    dropped++;
                }
                ring[(head + count) % ring.Length] = u;
                count++;
                Monitor.PulseAll(queueLock);
            }
        }

        // Queued is how many updates wait to be sent.
        public int Queued { get { lock (queueLock) return count; } }

        // Dropped is how many updates the capture has dropped so far.
        public long Dropped { get { lock (queueLock) return dropped; } }

        // Captured is the id of the capture the lab is storing, once welcomed.
        public string CaptureId { get { lock (queueLock) return captureId; } }

        // EndCapture sends what is queued, ends the capture (it becomes a trace
        // in the lab) and waits at most waitMs for the lab to say it is saved.
        public bool EndCapture(int waitMs)
        {
            DateTime deadline = DateTime.UtcNow.AddMilliseconds(waitMs);
            lock (queueLock)
            {
                ending = true;
                Monitor.PulseAll(queueLock);
                while (!ended)
                {
                    int left = (int)(deadline - DateTime.UtcNow).TotalMilliseconds;
                    if (left <= 0 || captureThread == null) return false;
                    Monitor.Wait(queueLock, left);
                }
                return true;
            }
        }

        // Stop stops both threads; an unended capture stays open in the lab,
        // to be resumed or stopped from the session's page.
        public void Stop()
        {
            stopping = true;
            lock (queueLock) Monitor.PulseAll(queueLock);
        }

        ClientWebSocket Connect(Uri uri)
        {
            var ws = new ClientWebSocket();
            if (token != "") ws.Options.SetRequestHeader("Authorization", "Bearer " + token);
            ws.ConnectAsync(uri, CancellationToken.None).Wait();
            return ws;
        }

        // Backoff sleeps half of wait plus up to the other half at random and
        // returns the next wait.
        int Backoff(int wait, string why)
        {
            int d;
            lock (jitter) d = wait / 2 + jitter.Next(wait / 2 + 1);
            log("InterpLab: " + why + "; reconnecting in " + d + " ms");
            for (int slept = 0; slept < d && !stopping; slept += 50) Thread.Sleep(Math.Min(50, d - slept));
            return Math.Min(2 * wait, MaxWaitMs);
        }

        static string Reason(Exception e)
        {
            while (e.InnerException != null) e = e.InnerException;
            return e.Message;
        }

        // Receive reads one whole message (at most max bytes), or returns
        // null with the close status when the lab closed.
        static byte[] Receive(ClientWebSocket ws, int max, out WebSocketMessageType type)
        {
            var buf = new ArraySegment<byte>(new byte[8192]);
            using (var msg = new MemoryStream())
            {
                while (true)
                {
                    WebSocketReceiveResult r = ws.ReceiveAsync(buf, CancellationToken.None).Result;
                    type = r.MessageType;
                    if (r.MessageType == WebSocketMessageType.Close) return null;
                    msg.Write(buf.Array, 0, r.Count);
                    if (msg.Length > max) throw new IOException("a message over " + max + " bytes");
                    if (r.EndOfMessage) return msg.ToArray();
                }
            }
        }

        void FollowSettings()
        {
            int wait = MinWaitMs;
            while (!stopping)
            {
                string why;
                try
                {
                    using (ClientWebSocket ws = Connect(settingsUri))
                    {
                        log("InterpLab: following " + settingsUri.GetLeftPart(UriPartial.Path));
                        wait = MinWaitMs;
                        while (!stopping)
                        {
                            WebSocketMessageType type;
                            byte[] data = Receive(ws, MaxTextBytes, out type);
                            if (data == null) break;
                            var m = Json.Parse(Encoding.UTF8.GetString(data)) as Dictionary<string, object>;
                            if (m == null) continue;
                            object t;
                            m.TryGetValue("type", out t);
                            if ("config".Equals(t))
                            {
                                var config = Json.Get(m, "config") as Dictionary<string, object>;
                                var s = config == null ? null : Json.Get(config, "settings") as Dictionary<string, object>;
                                if (s != null) lock (settingsLock) { latest = s; fresh = true; }
                            }
                            else if ("error".Equals(t)) log("InterpLab: the lab refused: " + Json.Get(m, "error"));
                        }
                        if (ws.CloseStatus.HasValue && (int)ws.CloseStatus.Value == 4404)
                        {
                            log("InterpLab: the session is gone (" + ws.CloseStatusDescription + "): no longer following");
                            return;
                        }
                        why = "the lab closed the settings (" + ws.CloseStatus + " " + ws.CloseStatusDescription + ")";
                    }
                }
                catch (Exception e) { why = "settings: " + Reason(e); }
                if (!stopping) wait = Backoff(wait, why);
            }
        }

        // A batch sent and not yet acknowledged, kept to resend after a reconnection.
        struct Sent { public uint number; public byte[] frame; }

        void StreamCapture()
        {
            int wait = MinWaitMs;
            var unacked = new Queue<Sent>();
            uint next = 1; // the next batch's number
            while (!stopping)
            {
                string why;
                try
                {
                    bool done = CaptureSession(unacked, ref next, ref wait, out why);
                    if (done) return;
                }
                catch (Exception e) { why = "capture: " + Reason(e); }
                if (!stopping) wait = Backoff(wait, why);
            }
        }

        // CaptureSession runs one connection of the capture. It returns true
        // when the capture is over (saved, or refused for good), false with
        // why to reconnect.
        bool CaptureSession(Queue<Sent> unacked, ref uint next, ref int wait, out string why)
        {
            why = "";
            using (ClientWebSocket ws = Connect(captureUri))
            {
                var hello = new StringBuilder();
                hello.Append("{\"type\":\"hello\",\"protocol\":").Append(Protocol)
                    .Append(",\"engine\":").Append(Json.Quote(engine))
                    .Append(",\"version\":").Append(Json.Quote(version))
                    .Append(",\"client\":").Append(Json.Quote(ClientName))
                    .Append(",\"rate\":").Append(rate.ToString("R", CultureInfo.InvariantCulture))
                    .Append(",\"time\":").Append(Json.Quote(timeBase));
                if (tickRate > 0) hello.Append(",\"tickRate\":").Append(tickRate.ToString("R", CultureInfo.InvariantCulture));
                if (traceName != "") hello.Append(",\"name\":").Append(Json.Quote(traceName));
                string resume = CaptureId;
                if (resume != null) hello.Append(",\"capture\":").Append(Json.Quote(resume));
                hello.Append('}');
                SendText(ws, hello.ToString());

                WebSocketMessageType type;
                byte[] data = Receive(ws, MaxTextBytes, out type);
                if (data == null) return Closed(ws, out why);
                var welcome = Json.Parse(Encoding.UTF8.GetString(data)) as Dictionary<string, object>;
                if (welcome == null || !"welcome".Equals(Json.Get(welcome, "type")))
                {
                    log("InterpLab: capture: the lab answered " + Encoding.UTF8.GetString(data));
                    data = Receive(ws, MaxTextBytes, out type);
                    return Closed(ws, out why);
                }
                wait = MinWaitMs;
                uint acked = (uint)Json.Number(welcome, "acked");
                int maxBatch = (int)Json.Number(welcome, "maxBatch");
                int window = (int)Json.Number(welcome, "window");
                double ceiling = Json.Number(welcome, "rate");
                lock (queueLock) captureId = Json.Get(welcome, "capture") as string;
                log("InterpLab: capturing into " + Json.Get(welcome, "trace") + " (capture " + CaptureId + ", " + acked + " batches stored)");
                var live = new CaptureState { unacked = unacked, ceiling = ceiling };
                lock (queueLock)
                {
                    while (unacked.Count > 0 && unacked.Peek().number <= acked) unacked.Dequeue();
                    if (unacked.Count == 0) next = acked + 1;
                }
                var reader = new Thread(() => ReadCapture(ws, live)) { IsBackground = true, Name = "InterpLab capture reader" };
                reader.Start();
                try
                {
                    return Stream(ws, live, unacked, ref next, maxBatch, window, out why);
                }
                finally
                {
                    // The socket goes only once its reader has stopped (a
                    // dropped connection ends the pending receive at once):
                    // mono's I/O thread aborts the process when a socket is
                    // closed under a pending receive.
                    if (!reader.Join(2000))
                    {
                        ws.Abort();
                        reader.Join();
                    }
                }
            }
        }

        // Stream sends the queued updates in batches, and end when the game
        // ends the capture, until the connection ends; as CaptureSession.
        bool Stream(ClientWebSocket ws, CaptureState live, Queue<Sent> unacked, ref uint next, int maxBatch, int window, out string why)
        {
            why = "";
            // Resend what the lab has not stored, in order.
            Sent[] resend;
            lock (queueLock) resend = unacked.ToArray();
            foreach (Sent b in resend) SendBinary(ws, b.frame);

            double tokens = maxBatch;
            DateTime last = DateTime.UtcNow, lastSend = last;
            bool endSent = false;
            while (!stopping)
            {
                byte[] frame = null;
                lock (queueLock)
                {
                    if (live.closed) break;
                    if (live.saved)
                    {
                        // Ended here or by Stop capture on the page: later
                        // updates are not captured.
                        ended = ending = true;
                        Monitor.PulseAll(queueLock);
                        return true;
                    }
                    DateTime now = DateTime.UtcNow;
                    tokens = Math.Min(maxBatch, tokens + live.ceiling * (now - last).TotalSeconds);
                    last = now;
                    int n = Math.Min(Math.Min(count, maxBatch), (int)tokens);
                    if (ending && count == 0 && unacked.Count == 0 && !endSent)
                    {
                        endSent = true;
                        frame = new byte[0];
                    }
                    else if (n > 0 && unacked.Count < window && (n == maxBatch || ending || (now - lastSend).TotalMilliseconds >= FlushMs))
                    {
                        lastSend = now;
                        frame = Frame(next, n);
                        tokens -= n;
                        unacked.Enqueue(new Sent { number = next, frame = frame });
                        next++;
                    }
                    else Monitor.Wait(queueLock, 10);
                }
                if (frame == null) continue;
                if (frame.Length == 0) SendText(ws, "{\"type\":\"end\",\"dropped\":" + Dropped + "}");
                else SendBinary(ws, frame);
            }
            if (stopping) return true;
            return Closed(ws, out why);
        }

        // Closed decides what a closed capture connection means: true when
        // the capture is over (saved, or refused for a reason a retry cannot
        // mend), false with why to reconnect and resume.
        bool Closed(ClientWebSocket ws, out string why)
        {
            int code = ws.CloseStatus.HasValue ? (int)ws.CloseStatus.Value : 1006;
            why = "the lab closed the capture (" + code + " " + ws.CloseStatusDescription + ")";
            switch (code)
            {
                case 1001: case 1006: case 1011: case 1013:
                    return stopping;
            }
            lock (queueLock)
            {
                ending = true; // later updates are not captured
                if (code == 1000) ended = true;
                else log("InterpLab: capture stopped: " + why);
                Monitor.PulseAll(queueLock);
            }
            return true;
        }

        // What the capture reader shares with the sender, under queueLock.
        class CaptureState
        {
            public Queue<Sent> unacked;
            public double ceiling;
            public bool saved, closed;
        }

        void ReadCapture(ClientWebSocket ws, CaptureState live)
        {
            try
            {
                while (true)
                {
                    WebSocketMessageType type;
                    byte[] data = Receive(ws, MaxTextBytes, out type);
                    if (data == null) break;
                    var m = Json.Parse(Encoding.UTF8.GetString(data)) as Dictionary<string, object>;
                    if (m == null) continue;
                    object t = Json.Get(m, "type");
                    lock (queueLock)
                    {
                        if ("ack".Equals(t))
                        {
                            double b = Json.Number(m, "batch");
                            while (live.unacked.Count > 0 && live.unacked.Peek().number <= b) live.unacked.Dequeue();
                        }
                        else if ("slow".Equals(t))
                        {
                            live.ceiling = Json.Number(m, "rate");
                            log("InterpLab: the lab asks for at most " + live.ceiling + " updates a second: " + Json.Get(m, "reason"));
                        }
                        else if ("saved".Equals(t))
                        {
                            live.saved = true;
                            log("InterpLab: capture saved as trace " + Json.Get(m, "trace") + " (" + Json.Get(m, "updates") + " updates, " + Json.Get(m, "dropped") + " dropped)");
                        }
                        else if ("error".Equals(t)) log("InterpLab: capture refused: " + Json.Get(m, "error"));
                        Monitor.PulseAll(queueLock);
                    }
                }
            }
            catch (Exception e) { log("InterpLab: capture: " + Reason(e)); }
            lock (queueLock)
            {
                live.closed = true;
                Monitor.PulseAll(queueLock);
            }
        }

        // Frame takes n queued updates into batch number's binary frame
        // (docs/capture-protocol.md: a 16-byte header, then 45 bytes an
        // update, 77 with a rotation, little-endian). Under queueLock.
        byte[] Frame(uint number, int n)
        {
            int size = 16;
            for (int i = 0; i < n; i++) size += ring[(head + i) % ring.Length].hasRotation ? 77 : 45;
            var frame = new byte[size];
            frame[0] = (byte)'i'; frame[1] = (byte)'l'; frame[2] = (byte)'c'; frame[3] = (byte)'1';
            PutU32(frame, 4, number);
            PutU32(frame, 8, (uint)n);
            PutU32(frame, 12, (uint)Math.Min(dropped, uint.MaxValue));
            int at = 16;
            for (int i = 0; i < n; i++)
            {
                CaptureUpdate u = ring[head];
                head = (head + 1) % ring.Length;
                count--;
                PutU32(frame, at, u.entity);
                frame[at + 4] = (byte)(u.hasRotation ? 2 : 0);
                at += 5;
                at = PutF64(frame, at, u.sent);
                at = PutF64(frame, at, u.arrive);
                at = PutF64(frame, at, u.x);
                at = PutF64(frame, at, u.y);
                at = PutF64(frame, at, u.z);
                if (u.hasRotation)
                {
                    // A unit quaternion to the lab's 1e-6: Unity's are float.
                    double norm = Math.Sqrt(u.qx * u.qx + u.qy * u.qy + u.qz * u.qz + u.qw * u.qw);
                    at = PutF64(frame, at, u.qx / norm);
                    at = PutF64(frame, at, u.qy / norm);
                    at = PutF64(frame, at, u.qz / norm);
                    at = PutF64(frame, at, u.qw / norm);
                }
            }
            return frame;
        }

        static void PutU32(byte[] b, int at, uint v)
        {
            b[at] = (byte)v; b[at + 1] = (byte)(v >> 8); b[at + 2] = (byte)(v >> 16); b[at + 3] = (byte)(v >> 24);
        }

        static int PutF64(byte[] b, int at, double v)
        {
            long bits = BitConverter.DoubleToInt64Bits(v);
            for (int i = 0; i < 8; i++) b[at + i] = (byte)(bits >> (8 * i));
            return at + 8;
        }

        static void SendText(ClientWebSocket ws, string text)
        {
            ws.SendAsync(new ArraySegment<byte>(Encoding.UTF8.GetBytes(text)), WebSocketMessageType.Text, true, CancellationToken.None).Wait();
        }

        static void SendBinary(ClientWebSocket ws, byte[] frame)
        {
            ws.SendAsync(new ArraySegment<byte>(frame), WebSocketMessageType.Binary, true, CancellationToken.None).Wait();
        }
    }

    // Json reads the lab's messages: objects as Dictionary<string, object>,
    // arrays as List<object>, numbers as double, true, false, null, strings.
    public static class Json
    {
        public static object Parse(string s)
        {
            int i = 0;
            try
            {
                object v = Value(s, ref i);
                Space(s, ref i);
                return i == s.Length ? v : null;
            }
            catch (FormatException) { return null; }
            catch (IndexOutOfRangeException) { return null; }
            catch (ArgumentOutOfRangeException) { return null; }
        }

        public static object Get(Dictionary<string, object> m, string key)
        {
            object v;
            return m.TryGetValue(key, out v) ? v : null;
        }

        // Number returns m[key] as a number, NaN when it is not one.
        public static double Number(Dictionary<string, object> m, string key)
        {
            object v = Get(m, key);
            return v is double ? (double)v : double.NaN;
        }

        public static string Quote(string s)
        {
            var b = new StringBuilder("\"");
            foreach (char c in s)
            {
                if (c == '"' || c == '\\') b.Append('\\').Append(c);
                else if (c < ' ') b.Append("\\u").Append(((int)c).ToString("x4"));
                else b.Append(c);
            }
            return b.Append('"').ToString();
        }

        static void Space(string s, ref int i)
        {
            while (i < s.Length && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) i++;
        }

        static object Value(string s, ref int i)
        {
            Space(s, ref i);
            char c = s[i];
            if (c == '{')
            {
                var m = new Dictionary<string, object>();
                i++;
                Space(s, ref i);
                if (s[i] == '}') { i++; return m; }
                while (true)
                {
                    Space(s, ref i);
                    string k = Str(s, ref i);
                    Space(s, ref i);
                    if (s[i++] != ':') throw new FormatException();
                    m[k] = Value(s, ref i);
                    Space(s, ref i);
                    if (s[i] == ',') { i++; continue; }
                    if (s[i++] == '}') return m;
                    throw new FormatException();
                }
            }
            if (c == '[')
            {
                var l = new List<object>();
                i++;
                Space(s, ref i);
                if (s[i] == ']') { i++; return l; }
                while (true)
                {
                    l.Add(Value(s, ref i));
                    Space(s, ref i);
                    if (s[i] == ',') { i++; continue; }
                    if (s[i++] == ']') return l;
                    throw new FormatException();
                }
            }
            if (c == '"') return Str(s, ref i);
            if (string.CompareOrdinal(s, i, "true", 0, 4) == 0) { i += 4; return true; }
            if (string.CompareOrdinal(s, i, "false", 0, 5) == 0) { i += 5; return false; }
            if (string.CompareOrdinal(s, i, "null", 0, 4) == 0) { i += 4; return null; }
            int start = i;
            while (i < s.Length && "+-0123456789.eE".IndexOf(s[i]) >= 0) i++;
            return double.Parse(s.Substring(start, i - start), NumberStyles.Float, CultureInfo.InvariantCulture);
        }

        static string Str(string s, ref int i)
        {
            if (s[i++] != '"') throw new FormatException();
            var b = new StringBuilder();
            while (true)
            {
                char c = s[i++];
                if (c == '"') return b.ToString();
                if (c != '\\') { b.Append(c); continue; }
                char e = s[i++];
                switch (e)
                {
                    case 'n': b.Append('\n'); break;
                    case 't': b.Append('\t'); break;
                    case 'r': b.Append('\r'); break;
                    case 'b': b.Append('\b'); break;
                    case 'f': b.Append('\f'); break;
                    case 'u': b.Append((char)Convert.ToInt32(s.Substring(i, 4), 16)); i += 4; break;
                    default: b.Append(e); break;
                }
            }
        }
    }
}
