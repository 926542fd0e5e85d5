package io.sandboxd.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Free TCP ports on the loopback address, picked by binding port 0 and closing again. Another
 * process can take such a port before it is used, so a caller that binds it later should be
 * ready to pick again (the daemon launcher retries when the daemon reports the port taken).
 */
public final class FreePorts {
    private FreePorts() {}

    /** One free loopback port. */
    public static int pick() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot bind a loopback port", e);
        }
    }

    /** {@code n} distinct free loopback ports. */
    public static int[] pick(int n) {
        Set<Integer> ports = new LinkedHashSet<>();
        while (ports.size() < n) {
            ports.add(pick());
        }
        return ports.stream().mapToInt(Integer::intValue).toArray();
    }
}
