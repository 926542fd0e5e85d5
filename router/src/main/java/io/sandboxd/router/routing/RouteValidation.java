package io.sandboxd.router.routing;

import io.netty.util.NetUtil;
import java.net.InetAddress;
import java.net.UnknownHostException;

/** Pure validation of the routing inputs; the same rules as upstream's headers.go. */
public final class RouteValidation {
  private static final int MAX_LABEL = 63;

  private RouteValidation() {}

  /** RFC 1123 label as Kubernetes uses it: {@code [a-z0-9]([-a-z0-9]*[a-z0-9])?}, at most 63 chars. */
  public static boolean isDns1123Label(String s) {
    if (s == null || s.isEmpty() || s.length() > MAX_LABEL) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      boolean alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
      if (!alnum && !(c == '-' && i > 0 && i < s.length() - 1)) {
        return false;
      }
    }
    return true;
  }

  /** Returns the port, or -1 when the text is not a plain decimal integer in [1, 65535]. */
  public static int parsePort(String s) {
    if (s == null || s.isEmpty() || s.length() > 5) {
      return -1;
    }
    int v = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      v = v * 10 + (c - '0');
    }
    return v >= 1 && v <= 65535 ? v : -1;
  }

  /**
   * Parses an IP literal (never a host name: no DNS lookup happens here) and returns it only if it
   * may be dialled. Loopback, link-local (169.254.0.0/16 holds cloud metadata; fe80::/10),
   * multicast, unspecified and the limited broadcast address are refused, so a caller cannot aim
   * the router at its own node or at the metadata service. RFC 1918 addresses are allowed: Pod IPs
   * live there.
   *
   * @return the address, or null when it is not an IP literal or not allowed
   */
  public static InetAddress vetPodIp(String s, boolean allowLoopback) {
    if (s == null || s.isEmpty()) {
      return null;
    }
    byte[] raw = NetUtil.createByteArrayFromIpAddressString(s.trim());
    if (raw == null) {
      return null;
    }
    InetAddress addr;
    try {
      // IPv4-mapped IPv6 (::ffff:a.b.c.d) comes back as an Inet4Address, so the checks see it.
      addr = InetAddress.getByAddress(raw);
    } catch (UnknownHostException e) {
      return null;
    }
    if (addr.isAnyLocalAddress()
        || addr.isLinkLocalAddress()
        || addr.isMulticastAddress()
        || isLimitedBroadcast(addr)
        || (addr.isLoopbackAddress() && !allowLoopback)) {
      return null;
    }
    return addr;
  }

  private static boolean isLimitedBroadcast(InetAddress a) {
    byte[] b = a.getAddress();
    return b.length == 4 && b[0] == -1 && b[1] == -1 && b[2] == -1 && b[3] == -1;
  }
}
