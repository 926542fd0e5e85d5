package io.sandboxd.router.testing;

import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http2.Http2Headers;
import io.sandboxd.router.authz.AllowAllAuthorizer;
import io.sandboxd.router.vetting.IpLiteral;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Run by {@code RestrictedTargetsInNetnsTest} inside a network namespace that has loopback alone:
 * asks an in-process router, over HTTP/1.1 and over HTTP/2 as a gRPC caller, to dial restricted
 * addresses given as X-Sandbox-Pod-IP, found through DNS and found in the Pod cache, and checks that
 * each is refused by the dial policy; and gives it every other spelling of such addresses (octal,
 * hex, single numbers, short forms, trailing dots, brackets, zone ids), which must not parse at all.
 * A check that wrongly passed would dial, and in this namespace reach nothing ("Could not connect"),
 * which fails the case. Refuses to send anything unless the namespace really has no interface but
 * {@code lo}.
 */
public final class NetnsVettingProbe {
    private NetnsVettingProbe() {}

    public static void main(String[] args) throws Exception {
        for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (!nif.isLoopback()) {
                System.out.println(
                        "REFUSING to run: interface " + nif.getName() + " exists; run me in `unshare --net`");
                System.exit(3);
            }
        }
        Map<String, List<String>> dns = new LinkedHashMap<>();
        dns.put("metadata", List.of("169.254.169.254"));
        dns.put("mixed", List.of("10.1.2.3", "169.254.169.254"));
        dns.put("aws-v6", List.of("fd00:ec2::254"));
        dns.put("alibaba", List.of("100.100.100.200"));
        dns.put("oracle", List.of("192.0.0.192"));
        dns.put("nat64", List.of("64:ff9b::a9fe:a9fe"));
        dns.put("sixtofour", List.of("2002:a9fe:a9fe::1"));
        dns.put("mapped", List.of("::ffff:169.254.169.254"));
        dns.put("node", List.of("10.1.2.3", "127.0.0.1"));
        Map<String, List<InetAddress>> names = new LinkedHashMap<>();
        for (var e : dns.entrySet()) {
            List<InetAddress> a = new ArrayList<>();
            for (String ip : e.getValue()) {
                a.add(InetAddress.getByAddress(IpLiteral.parse(ip)));
            }
            names.put(e.getKey() + ".team-a.svc." + RouterFixture.DOMAIN, a);
        }
        Map<String, String> cached = Map.of(
                "team-a/c-metadata",
                "169.254.169.254",
                "team-a/c-cgnat",
                "100.100.100.200",
                "team-a/c-ula",
                "fd00:ec2::254",
                "team-a/c-linklocal6",
                "fe80::1");
        List<String> headerIps = List.of(
                "169.254.169.254",
                "169.254.0.1",
                "fe80::1",
                "224.0.0.1",
                "ff02::1",
                "0.0.0.0",
                "::",
                "255.255.255.255",
                "240.0.0.1",
                "100.64.0.1",
                "100.100.100.200",
                "192.0.0.192",
                "fd00:ec2::254",
                "fc00::1",
                "fec0::1",
                "::ffff:169.254.169.254",
                "::ffff:100.100.100.200",
                "64:ff9b::a9fe:a9fe",
                "64:ff9b::100.100.100.200",
                "64:ff9b:1::a9fe:a9fe",
                "2002:a9fe:a9fe::1",
                "2001:0:a9fe:a9fe::",
                "::169.254.169.254",
                "::ffff:0:a9fe:a9fe",
                "FD00:EC2::254");
        // Spellings some resolver or URL parser reads as a restricted address; the router reads none.
        List<String> spellings = List.of(
                "0251.0376.0251.0376",
                "0xa9.0xfe.0xa9.0xfe",
                "0xa9fea9fe",
                "2852039166",
                "169.254.43518",
                "169.16689662",
                "169.254.169.254.",
                "0144.0144.0144.0310",
                "0x646464c8",
                "1684301000",
                "100.100.25800",
                "0300.0.0.0300",
                "3221225664",
                "0177.0.0.1",
                "2130706433",
                "127.1",
                "[169.254.169.254]",
                "[fd00:ec2::254]",
                "[::ffff:169.254.169.254]",
                "fe80::1%eth0",
                "fe80::1%25eth0",
                "fe80::1%1",
                "fd00:ec2::254%lo",
                "fd00:ec2::254.",
                "::ffff:0251.0376.0251.0376",
                "::ffff:169.254.43518",
                "64:ff9b::0xa9fe:a9fe",
                "metadata.google.internal",
                "localhost");
        int failures = 0;
        int cases = 0;
        try (RouterFixture router = new RouterFixture(
                        RouterFixture.config(),
                        new FixedPodCache(cached),
                        (ns, n) -> true,
                        new AllowAllAuthorizer(),
                        names);
                H2RawClient h2 = new H2RawClient(router.port())) {
            for (String ip : headerIps) {
                failures += check(router, "pod-ip " + ip, "sb", ip, 400, "Invalid target IP address: ");
                failures += checkGrpc(h2, "grpc pod-ip " + ip, "sb", ip, 3, "Invalid target IP address: ");
                cases += 2;
            }
            for (String text : spellings) {
                failures += check(router, "spelling " + text, "sb", text, 400, "Invalid target IP address.\"}");
                failures += checkGrpc(h2, "grpc spelling " + text, "sb", text, 3, "Invalid target IP address.");
                cases += 2;
            }
            for (String n : dns.keySet()) {
                failures += check(
                        router, "dns " + n + " -> " + dns.get(n), n, null, 502, "Refusing to dial the backend sandbox");
                failures += checkGrpc(
                        h2, "grpc dns " + n + " -> " + dns.get(n), n, null, 14, "Refusing to dial the backend sandbox");
                cases += 2;
            }
            for (String key : cached.keySet()) {
                String id = key.substring(key.indexOf('/') + 1);
                failures += check(
                        router,
                        "cache " + id + " -> " + cached.get(key),
                        id,
                        null,
                        502,
                        "Refusing to dial the backend sandbox");
                failures += checkGrpc(
                        h2,
                        "grpc cache " + id + " -> " + cached.get(key),
                        id,
                        null,
                        14,
                        "Refusing to dial the backend sandbox");
                cases += 2;
            }
            // Control: an allowed address is dialled, and in here it reaches nothing.
            failures += check(router, "control pod-ip 10.1.2.3", "sb", "10.1.2.3", 502, "Could not connect");
            failures += checkGrpc(h2, "grpc control pod-ip 10.1.2.3", "sb", "10.1.2.3", 14, "Could not connect");
            cases += 2;
        }
        System.out.println("cases " + cases);
        System.out.println(failures == 0 ? "probe OK" : "probe FAILED: " + failures);
        System.exit(failures == 0 ? 0 : 1);
    }

    /** The same over HTTP/2 as a gRPC caller: the refusal arrives as a gRPC status and message. */
    private static int checkGrpc(H2RawClient h2, String name, String id, String podIp, int grpcStatus, String message)
            throws Exception {
        Http2Headers h = H2RawClient.request("POST", "/process.v1.ProcessService/Execute")
                .add("content-type", "application/grpc")
                .add("te", "trailers")
                .add("x-sandbox-id", id)
                .add("x-sandbox-namespace", "team-a")
                .add("x-sandbox-port", "80");
        if (podIp != null) {
            h.add("x-sandbox-pod-ip", podIp);
        }
        H2RawClient.Answer a = h2.exchange(h, null);
        String status = a.last("grpc-status");
        String text = a.last("grpc-message");
        boolean ok = Integer.toString(grpcStatus).equals(status)
                && text != null
                && QueryStringDecoder.decodeComponent(text.replace("+", "%2B")).startsWith(message);
        System.out.println((ok ? "ok   " : "FAIL ") + name + ": grpc-status " + status + " " + text);
        return ok ? 0 : 1;
    }

    private static int check(RouterFixture r, String name, String id, String podIp, int status, String detail)
            throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(r.uri("/latest/meta-data/"))
                .timeout(Duration.ofSeconds(20))
                .header("X-Sandbox-ID", id)
                .header("X-Sandbox-Namespace", "team-a")
                .header("X-Sandbox-Port", "80");
        if (podIp != null) {
            b.header("X-Sandbox-Pod-IP", podIp);
        }
        HttpResponse<String> res = r.http.send(b.build(), BodyHandlers.ofString());
        boolean ok = res.statusCode() == status && res.body().startsWith("{\"detail\":\"" + detail);
        System.out.println((ok ? "ok   " : "FAIL ") + name + ": " + res.statusCode() + " " + res.body());
        return ok ? 0 : 1;
    }
}
