package io.sandboxd.router.routing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RouteValidationTest {
  @ParameterizedTest
  @ValueSource(strings = {"a", "0", "sb-1", "a-b-c", "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij123"})
  void validLabels(String s) {
    assertThat(RouteValidation.isDns1123Label(s)).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "-a", "a-", "A", "a_b", "a.b", "a/b", "é", " a",
      "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij1234"})
  void invalidLabels(String s) {
    assertThat(RouteValidation.isDns1123Label(s)).isFalse();
  }

  @Test
  void nullLabelIsInvalid() {
    assertThat(RouteValidation.isDns1123Label(null)).isFalse();
  }

  @Test
  void ports() {
    assertThat(RouteValidation.parsePort("1")).isEqualTo(1);
    assertThat(RouteValidation.parsePort("8888")).isEqualTo(8888);
    assertThat(RouteValidation.parsePort("65535")).isEqualTo(65535);
    for (String bad : new String[] {"0", "65536", "99999", "-1", "+80", "8o", "", " 80", "080000", null}) {
      assertThat(RouteValidation.parsePort(bad)).as(String.valueOf(bad)).isEqualTo(-1);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"10.0.0.7", "192.168.1.2", "172.16.0.1", "100.64.0.1", "8.8.8.8",
      "fd00::1", "2001:db8::1", "::ffff:10.1.2.3"})
  void allowedPodIps(String ip) {
    assertThat(RouteValidation.vetPodIp(ip, false)).isNotNull();
  }

  @ParameterizedTest
  @ValueSource(strings = {"169.254.169.254", "169.254.0.1", "fe80::1", "fe80::a:b", "::ffff:169.254.169.254",
      "224.0.0.1", "239.255.255.250", "ff02::1", "ff05::2", "0.0.0.0", "::", "255.255.255.255",
      "127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1",
      "localhost", "metadata.google.internal", "10.0.0", "1.2.3.4.5", "fe80::1%eth0", "", " "})
  void rejectedPodIps(String ip) {
    assertThat(RouteValidation.vetPodIp(ip, false)).isNull();
  }

  @Test
  void loopbackOnlyWithTheFlag() {
    assertThat(RouteValidation.vetPodIp("127.0.0.1", true)).isNotNull();
    assertThat(RouteValidation.vetPodIp("::1", true)).isNotNull();
    assertThat(RouteValidation.vetPodIp("169.254.169.254", true)).isNull();
  }
}
