package io.sandboxd.client;

/** No connection could be made to the daemon: refused, unknown host, no route, connect timeout. */
public final class DaemonUnreachableException extends SandboxdException {
    private final String address;

    public DaemonUnreachableException(String protocol, String address, Throwable cause) {
        super("cannot reach sandboxd " + protocol + " at " + address + ": " + reason(cause), cause);
        this.address = address;
    }

    /** What was tried: {@code host:port} for gRPC, the base URL for REST. */
    public String address() {
        return address;
    }

    static String reason(Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof java.net.UnknownHostException
                    || t instanceof java.nio.channels.UnresolvedAddressException) {
                return "unknown host";
            }
            if (t instanceof java.net.http.HttpConnectTimeoutException
                    || t instanceof io.netty.channel.ConnectTimeoutException) {
                return "connect timed out";
            }
            if (t instanceof java.net.NoRouteToHostException) {
                return "no route to host";
            }
            if (t instanceof java.net.ConnectException) {
                String m = t.getMessage();
                // java.net.http reports a refused connect as a ConnectException without a message
                if (m == null || m.toLowerCase(java.util.Locale.ROOT).contains("refused")) {
                    return "connection refused";
                }
            }
        }
        return "connection failed";
    }

    /** True if {@code t} (or a cause) says that no connection could be made. */
    static boolean isConnectFailure(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof java.net.ConnectException
                    || c instanceof java.net.UnknownHostException
                    || c instanceof java.nio.channels.UnresolvedAddressException
                    || c instanceof java.net.NoRouteToHostException
                    || c instanceof io.netty.channel.ConnectTimeoutException) {
                return true;
            }
        }
        return false;
    }
}
