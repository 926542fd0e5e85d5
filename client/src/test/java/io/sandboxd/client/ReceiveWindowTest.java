package io.sandboxd.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import org.junit.jupiter.api.Test;

/**
 * The HTTP/2 receive window the client announces (SETTINGS_INITIAL_WINDOW_SIZE of its first
 * SETTINGS frame), read off the wire by a plain socket standing in for the daemon.
 */
class ReceiveWindowTest {
    private static final int SETTINGS = 0x4;
    private static final int INITIAL_WINDOW_SIZE = 0x4;

    @Test
    void streamsStartWithAFourMebibyteWindow() throws Exception {
        assertThat(announcedWindow(SandboxdClient.builder())).isEqualTo(4 << 20);
    }

    @Test
    void aFixedWindowReplacesIt() throws Exception {
        assertThat(announcedWindow(SandboxdClient.builder().flowControlWindow(1 << 20)))
                .isEqualTo(1 << 20);
    }

    /** Connects a client built from {@code b} and returns the initial window its SETTINGS names (-1: none). */
    private static long announcedWindow(SandboxdClient.Builder b) throws IOException {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            server.setSoTimeout(10_000);
            try (SandboxdClient c = b.grpcTarget("127.0.0.1:" + server.getLocalPort())
                    .restBase("http://127.0.0.1:1")
                    .build()) {
                c.managedChannel().getState(true); // connects: the preface and SETTINGS go out at once
                try (Socket s = server.accept()) {
                    s.setSoTimeout(10_000);
                    DataInputStream in = new DataInputStream(s.getInputStream());
                    in.readFully(new byte[24]); // "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
                    int length = (in.readUnsignedByte() << 16) | in.readUnsignedShort();
                    int type = in.readUnsignedByte();
                    in.readUnsignedByte(); // flags
                    in.readInt(); // stream 0
                    assertThat(type).isEqualTo(SETTINGS);
                    long window = -1;
                    for (int i = 0; i < length / 6; i++) {
                        int id = in.readUnsignedShort();
                        long value = in.readInt() & 0xFFFFFFFFL;
                        if (id == INITIAL_WINDOW_SIZE) {
                            window = value;
                        }
                    }
                    return window;
                }
            }
        }
    }
}
