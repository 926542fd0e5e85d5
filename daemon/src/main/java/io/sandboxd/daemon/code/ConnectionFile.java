package io.sandboxd.daemon.code;

import com.google.gson.JsonObject;
import io.sandboxd.daemon.process.os.ChildCredentials;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * A kernel's connection file (jupyter_client's format): five TCP ports on 127.0.0.1 and the
 * per-kernel HMAC key. Written with mode 0600 (owned by the run-as user when there is one, so the
 * kernel can read it and nobody else can) into the daemon's kernel directory; deleted with the kernel.
 *
 * @param ports shell, iopub, stdin, control, hb
 */
record ConnectionFile(Path path, int[] ports, byte[] key) {
    static final String IP = "127.0.0.1";
    private static final SecureRandom RANDOM = new SecureRandom();

    int shell() {
        return ports[0];
    }

    int iopub() {
        return ports[1];
    }

    int control() {
        return ports[3];
    }

    int hb() {
        return ports[4];
    }

    static ConnectionFile create(Path path, ChildCredentials owner) throws IOException {
        byte[] raw = new byte[32];
        RANDOM.nextBytes(raw);
        byte[] key = HexFormat.of().formatHex(raw).getBytes(StandardCharsets.US_ASCII);
        ConnectionFile f = new ConnectionFile(path, freePorts(5), key);
        try (SeekableByteChannel ch = Files.newByteChannel(
                path,
                java.util.Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
            ch.write(java.nio.ByteBuffer.wrap(f.json().getBytes(StandardCharsets.UTF_8)));
        }
        if (!owner.inherits()) {
            Files.setAttribute(path, "unix:gid", owner.gid());
            Files.setAttribute(path, "unix:uid", owner.uid());
        }
        return f;
    }

    String json() {
        JsonObject o = new JsonObject();
        o.addProperty("transport", "tcp");
        o.addProperty("ip", IP);
        o.addProperty("shell_port", ports[0]);
        o.addProperty("iopub_port", ports[1]);
        o.addProperty("stdin_port", ports[2]);
        o.addProperty("control_port", ports[3]);
        o.addProperty("hb_port", ports[4]);
        o.addProperty("signature_scheme", "hmac-sha256");
        o.addProperty("key", new String(key, StandardCharsets.US_ASCII));
        o.addProperty("kernel_name", "");
        return o.toString();
    }

    void delete() {
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            // the kernel directory is removed at the next start anyway
        }
    }

    /**
     * Distinct free ports on 127.0.0.1, found by binding them all at once and letting go (as
     * jupyter_client does): the kernel binds them moments later.
     */
    static int[] freePorts(int n) throws IOException {
        List<ServerSocket> held = new ArrayList<>();
        try {
            int[] ports = new int[n];
            for (int i = 0; i < n; i++) {
                ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName(IP));
                held.add(s);
                ports[i] = s.getLocalPort();
            }
            return ports;
        } finally {
            for (ServerSocket s : held) {
                s.close();
            }
        }
    }
}
