package io.sandboxd.router.vetting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sandboxd.router.resolve.ResolvedTarget;
import io.sandboxd.router.resolve.ResolvedTarget.Source;
import io.sandboxd.router.routing.RouteException;
import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

class DialPolicyTest {
    static InetAddress ip(String s) throws Exception {
        return InetAddress.getByAddress(IpLiteral.parse(s));
    }

    static ResolvedTarget target(Source source, String... ips) throws Exception {
        List<InetAddress> a = new java.util.ArrayList<>();
        for (String s : ips) {
            a.add(ip(s));
        }
        return new ResolvedTarget(a, 8888, "h:8888", source);
    }

    @Test
    void theFirstAddressIsDialledWhenAllPass() throws Exception {
        DialPolicy p = new DialPolicy(AddressPolicy.builtIn(), false);
        assertThat(p.choose(target(Source.DNS, "10.0.0.7", "10.0.0.8"), "ns", "sb")
                        .getAddress())
                .isEqualTo(ip("10.0.0.7"));
        assertThat(p.choose(target(Source.DNS, "10.0.0.7"), "ns", "sb").isUnresolved())
                .isFalse(); // never looked up again
    }

    @Test
    void anyRefusedAddressRefusesTheTarget() throws Exception {
        DialPolicy p = new DialPolicy(AddressPolicy.builtIn(), false);
        assertThatThrownBy(() -> p.choose(target(Source.DNS, "10.0.0.7", "169.254.169.254"), "ns", "sb"))
                .isInstanceOfSatisfying(RouteException.class, e -> {
                    assertThat(e.status()).isEqualTo(502);
                    assertThat(e.detail())
                            .isEqualTo("Refusing to dial the backend sandbox ns/sb: its dns address is link-local"
                                    + " (169.254.0.0/16, fe80::/10).")
                            .doesNotContain("169.254.169.254");
                });
        assertThatThrownBy(() -> p.choose(target(Source.POD_IP, "169.254.169.254"), "ns", "sb"))
                .isInstanceOfSatisfying(
                        RouteException.class, e -> assertThat(e.status()).isEqualTo(400));
        assertThatThrownBy(() -> p.choose(target(Source.DNS), "ns", "sb"))
                .isInstanceOfSatisfying(RouteException.class, e -> assertThat(e.detail())
                        .isEqualTo("No address found for the backend sandbox ns/sb."));
    }

    @Test
    void loopbackPodIpIsAllowedOnlyForTheHeaderAndOnlyWithTheFlag() throws Exception {
        DialPolicy lenient = new DialPolicy(AddressPolicy.builtIn(), true);
        assertThat(lenient.choose(target(Source.POD_IP, "127.0.0.1"), "ns", "sb")
                        .getPort())
                .isEqualTo(8888);
        assertThat(lenient.choose(target(Source.POD_IP, "::1"), "ns", "sb").getPort())
                .isEqualTo(8888);
        assertThatThrownBy(() -> lenient.choose(target(Source.CACHE, "127.0.0.1"), "ns", "sb"))
                .isInstanceOf(RouteException.class);
        assertThatThrownBy(() -> lenient.choose(target(Source.POD_IP, "169.254.169.254"), "ns", "sb"))
                .isInstanceOf(RouteException.class);
        DialPolicy strict = new DialPolicy(AddressPolicy.builtIn(), false);
        assertThatThrownBy(() -> strict.choose(target(Source.POD_IP, "127.0.0.1"), "ns", "sb"))
                .isInstanceOf(RouteException.class);
    }
}
