package io.sandboxd.daemon.code;

import com.google.gson.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.zeromq.SocketType;
import org.zeromq.ZMQ;

/**
 * The client side of one kernel's channels on the {@link KernelLoop}: DEALER sockets to shell and
 * control, a SUB socket to iopub, a REQ socket to the heartbeat, all on 127.0.0.1. Every message
 * received is checked against the kernel's key; a wrong signature is dropped and reported. Inbound
 * frames beyond {@code maxMessageSize} make ZeroMQ end the connection for good (a protocol error:
 * no reconnect). Monitors see that: iopub is then opened afresh (the outputs in between are lost
 * and reported), while shell is reported so the context can end a kernel that misbehaves there.
 * On the loop only.
 */
final class KernelConnection {
    /** How many messages one socket may deliver per poll round, so one chatty kernel cannot starve the rest. */
    private static final int BATCH = 64;

    private static final AtomicLong MONITORS = new AtomicLong();

    /** What the connection reports, on the loop. */
    interface Listener {
        void onIopub(KernelMessage m);

        void onShellReply(KernelMessage m);

        void onControlReply(KernelMessage m);

        void onHeartbeat();

        /** A message was dropped: its signature was wrong (true) or it was malformed. */
        void onRejected(boolean badSignature);

        /** The iopub connection dropped, typically for a message over the size limit; a new one is being made. */
        void onIopubDropped();

        /** The shell connection dropped: the kernel died, or sent a message over the size limit. */
        void onShellDropped();
    }

    private final KernelLoop loop;
    private final ConnectionFile file;
    private final long maxMessageSize;
    private final Listener listener;
    private final WireCodec codec;
    private ZMQ.Socket shell;
    private ZMQ.Socket control;
    private ZMQ.Socket iopub;
    private ZMQ.Socket hb;
    private ZMQ.Socket iopubMonitor;
    private ZMQ.Socket shellMonitor;
    private boolean pingOutstanding;

    KernelConnection(KernelLoop loop, ConnectionFile file, long maxMessageSize, Listener listener) {
        this.loop = loop;
        this.file = file;
        this.maxMessageSize = maxMessageSize;
        this.listener = listener;
        this.codec = new WireCodec(file.key());
    }

    void open() {
        shell = connect(SocketType.DEALER, file.shell());
        shellMonitor = monitor(shell, () -> listener.onShellDropped());
        control = connect(SocketType.DEALER, file.control());
        openIopub();
        hb = connect(SocketType.REQ, file.hb());
        loop.register(shell, () -> drain(shell, listener::onShellReply));
        loop.register(control, () -> drain(control, listener::onControlReply));
        loop.register(hb, this::heartbeatReply);
    }

    private void openIopub() {
        iopub = loop.socket(SocketType.SUB);
        iopub.setMaxMsgSize(maxMessageSize);
        iopubMonitor = monitor(iopub, this::iopubDropped);
        iopub.subscribe(new byte[0]);
        iopub.connect(tcp(file.iopub()));
        loop.register(iopub, () -> drain(iopub, listener::onIopub));
    }

    private void iopubDropped() {
        closeMonitored(iopub, iopubMonitor);
        openIopub();
        listener.onIopubDropped();
    }

    /**
     * Stops {@code s}'s monitor before closing either socket. JeroMQ's I/O thread sends monitor
     * events with a blocking send: a disconnection seen after the receiving PAIR was closed (the
     * kernel killed while its sockets are still being torn down) blocked that thread for good,
     * and with it every kernel's connections (a Restart then timed out waiting for a kernel that
     * was up and listening).
     */
    private void closeMonitored(ZMQ.Socket s, ZMQ.Socket monitor) {
        if (s != null) {
            s.monitor(null, 0);
        }
        if (monitor != null) {
            loop.close(monitor);
        }
        if (s != null) {
            loop.close(s);
        }
    }

    /** A PAIR socket receiving {@code s}'s disconnections, which runs {@code onDisconnect} for each. */
    private ZMQ.Socket monitor(ZMQ.Socket s, Runnable onDisconnect) {
        String address = "inproc://sandboxd-kernel-monitor-" + MONITORS.incrementAndGet();
        s.monitor(address, ZMQ.EVENT_DISCONNECTED);
        ZMQ.Socket m = loop.socket(SocketType.PAIR);
        m.connect(address);
        loop.register(m, () -> {
            ZMQ.Event e;
            while ((e = ZMQ.Event.recv(m, ZMQ.DONTWAIT)) != null) {
                if (e.getEvent() == ZMQ.EVENT_DISCONNECTED) {
                    onDisconnect.run();
                    return; // the handler may have closed this monitor
                }
            }
        });
        return m;
    }

    private ZMQ.Socket connect(SocketType type, int port) {
        ZMQ.Socket s = loop.socket(type);
        s.setMaxMsgSize(maxMessageSize);
        s.connect(tcp(port));
        return s;
    }

    private static String tcp(int port) {
        return "tcp://" + ConnectionFile.IP + ":" + port;
    }

    /** Sends a request on shell (or control) and returns its msg_id. */
    String send(boolean onControl, String msgType, JsonObject content) {
        String id = WireCodec.newMessageId();
        List<byte[]> frames = codec.encode(msgType, id, content);
        ZMQ.Socket s = onControl ? control : shell;
        for (int i = 0; i < frames.size(); i++) {
            s.send(frames.get(i), i < frames.size() - 1 ? ZMQ.SNDMORE | ZMQ.DONTWAIT : ZMQ.DONTWAIT);
        }
        return id;
    }

    /** Sends a heartbeat unless one is still unanswered; returns whether one is outstanding now. */
    boolean ping() {
        if (!pingOutstanding) {
            pingOutstanding = hb.send(new byte[] {'p'}, ZMQ.DONTWAIT);
            return false;
        }
        return true;
    }

    /** REQ: one reply per request, and a second recv before the next send is an error. */
    private void heartbeatReply() {
        if (pingOutstanding && hb.recv(ZMQ.DONTWAIT) != null) {
            pingOutstanding = false;
            listener.onHeartbeat();
        }
    }

    private void drain(ZMQ.Socket s, java.util.function.Consumer<KernelMessage> to) {
        for (int n = 0; n < BATCH; n++) {
            byte[] first = s.recv(ZMQ.DONTWAIT);
            if (first == null) {
                return;
            }
            List<byte[]> frames = new ArrayList<>(7);
            frames.add(first);
            while (s.hasReceiveMore()) {
                frames.add(s.recv(0));
            }
            KernelMessage m;
            try {
                m = codec.decode(frames);
            } catch (WireCodec.Rejected r) {
                listener.onRejected(r.badSignature);
                continue;
            }
            to.accept(m);
        }
    }

    /** Closes every socket; nothing is reported afterwards. */
    void close() {
        closeMonitored(shell, shellMonitor);
        closeMonitored(iopub, iopubMonitor);
        for (ZMQ.Socket s : new ZMQ.Socket[] {control, hb}) {
            if (s != null) {
                loop.close(s);
            }
        }
        iopubMonitor = shellMonitor = shell = control = iopub = hb = null;
    }
}
