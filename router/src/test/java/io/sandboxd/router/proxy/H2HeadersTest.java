package io.sandboxd.router.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class H2HeadersTest {
    static Http2Headers grpcRequest() {
        return new DefaultHttp2Headers()
                .method("POST")
                .scheme("http")
                .authority("router.example:8080")
                .path("/process.v1.ProcessService/Execute")
                .set("content-type", "application/grpc+proto")
                .set("te", "trailers")
                .set("grpc-timeout", "5S")
                .set("authorization", "Bearer secret")
                .set("proxy-authorization", "Basic x")
                .set("x-forwarded-for", "6.6.6.6")
                .set("x-forwarded-host", "evil")
                .set("x-forwarded-proto", "https")
                .set("host", "other")
                .set("x-sandbox-id", "sb")
                .add("custom-bin", "AAE=");
    }

    @Test
    void theBackendRequestKeepsMetadataAndDeadlineButNotCredentials() {
        Http2Headers out =
                H2Headers.forBackend(grpcRequest(), "/process.v1.ProcessService/Execute", "10.0.0.7:9090", "192.0.2.9");
        assertThat(out.path().toString()).isEqualTo("/process.v1.ProcessService/Execute");
        assertThat(out.authority().toString()).isEqualTo("10.0.0.7:9090");
        assertThat(out.scheme().toString()).isEqualTo("http");
        assertThat(out.method().toString()).isEqualTo("POST");
        assertThat(out.get("te").toString()).isEqualTo("trailers");
        assertThat(out.get("grpc-timeout").toString()).isEqualTo("5S");
        assertThat(out.get("custom-bin").toString()).isEqualTo("AAE=");
        assertThat(out.get("x-sandbox-id").toString()).isEqualTo("sb");
        assertThat(out.get("authorization")).isNull();
        assertThat(out.get("proxy-authorization")).isNull();
        assertThat(out.get("host")).isNull();
        assertThat(out.getAll("x-forwarded-for")).hasSize(1).first().hasToString("192.0.2.9");
        assertThat(out.get("x-forwarded-host").toString()).isEqualTo("router.example:8080");
        assertThat(out.get("x-forwarded-proto").toString()).isEqualTo("http");
    }

    @Test
    void theRoutingViewHasTheRegularFieldsOnly() {
        HttpHeaders v = H2Headers.routingView(grpcRequest());
        assertThat(v.get("X-Sandbox-ID")).isEqualTo("sb");
        assertThat(v.get("authorization")).isEqualTo("Bearer secret");
        assertThat(v.names()).noneMatch(n -> n.startsWith(":"));
    }

    @Test
    void grpcIsRecognisedByContentType() {
        assertThat(H2Headers.isGrpc(grpcRequest())).isTrue();
        assertThat(H2Headers.isGrpc(new DefaultHttp2Headers().set("content-type", "application/grpc")))
                .isTrue();
        assertThat(H2Headers.isGrpc(new DefaultHttp2Headers().set("content-type", "Application/GRPC+json")))
                .isTrue();
        assertThat(H2Headers.isGrpc(new DefaultHttp2Headers().set("content-type", "application/json")))
                .isFalse();
        assertThat(H2Headers.isGrpc(new DefaultHttp2Headers())).isFalse();
    }

    @ParameterizedTest
    @CsvSource({
        "400,3", "414,3", "431,3", "401,16", "403,7", "404,12", "405,12", "501,12", "505,12", "500,13", "502,14",
        "503,14", "504,4", "418,2"
    })
    void refusalsMapToGrpcCodes(int http, int grpc) {
        assertThat(H2Headers.grpcStatus(http)).isEqualTo(grpc);
    }

    @Test
    void grpcMessagesArePercentEncoded() {
        assertThat(H2Headers.grpcMessage("plain text: ok")).isEqualTo("plain text: ok");
        assertThat(H2Headers.grpcMessage("100% \"é\"\n")).isEqualTo("100%25 \"%C3%A9\"%0A");
        Http2Headers h = H2Headers.grpcError(403, "Forbidden: \"alice\"");
        assertThat(h.status().toString()).isEqualTo("200");
        assertThat(h.get("content-type").toString()).isEqualTo("application/grpc");
        assertThat(h.getInt("grpc-status")).isEqualTo(7);
        assertThat(h.get("grpc-message").toString()).isEqualTo("Forbidden: \"alice\"");
    }
}
