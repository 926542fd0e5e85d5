package io.sandboxd.daemon.code;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.util.List;
import org.junit.jupiter.api.Test;

class IopubOutputsTest {
    static JsonObject json(String s) {
        return JsonParser.parseString(s).getAsJsonObject();
    }

    @Test
    void streams() {
        assertThat(IopubOutputs.parse("stream", json("{\"name\":\"stderr\",\"text\":\"oops\"}")))
                .isEqualTo(new CodeOutput.Stream(true, "oops"));
        assertThat(IopubOutputs.parse("stream", json("{\"name\":\"stdout\",\"text\":\"hi\"}")))
                .isEqualTo(new CodeOutput.Stream(false, "hi"));
    }

    @Test
    void mimeBundlesDecodeBinaryKeepTextAndSerializeJson() {
        CodeOutput.Rich r = (CodeOutput.Rich) IopubOutputs.parse(
                "display_data",
                json("{\"data\":{\"image/png\":\"iVBORw0K\\n\",\"text/plain\":\"<Figure>\","
                        + "\"image/svg+xml\":[\"<svg>\",\"</svg>\"],\"application/json\":{\"a\":[1,2]},"
                        + "\"application/vnd.custom\":\"x\",\"image/jpeg\":\"not base64!\"},"
                        + "\"metadata\":{\"image/png\":{\"width\":10}},\"transient\":{\"display_id\":\"d1\"}}"));
        assertThat(r.kind()).isEqualTo(CodeOutput.RichKind.DISPLAY_DATA);
        assertThat(r.displayId()).isEqualTo("d1");
        assertThat(r.metadataJson()).isEqualTo("{\"image/png\":{\"width\":10}}");
        MimeValue png = byType(r.data(), "image/png");
        assertThat(png.kind()).isEqualTo(MimeValue.Kind.BINARY);
        assertThat(png.binary()).startsWith(0x89, 'P', 'N', 'G');
        assertThat(byType(r.data(), "text/plain")).isEqualTo(MimeValue.text("text/plain", "<Figure>"));
        assertThat(byType(r.data(), "image/svg+xml").text()).isEqualTo("<svg></svg>");
        assertThat(byType(r.data(), "application/json")).isEqualTo(MimeValue.json("application/json", "{\"a\":[1,2]}"));
        assertThat(byType(r.data(), "application/vnd.custom").kind()).isEqualTo(MimeValue.Kind.TEXT);
        assertThat(byType(r.data(), "image/jpeg")).isEqualTo(MimeValue.text("image/jpeg", "not base64!"));
    }

    @Test
    void executeResultsErrorsAndClear() {
        CodeOutput.Rich r = (CodeOutput.Rich) IopubOutputs.parse(
                "execute_result", json("{\"execution_count\":7,\"data\":{\"text/plain\":\"42\"},\"metadata\":{}}"));
        assertThat(r.kind()).isEqualTo(CodeOutput.RichKind.EXECUTE_RESULT);
        assertThat(r.executionCount()).isEqualTo(7);
        assertThat(IopubOutputs.parse(
                        "error", json("{\"ename\":\"ValueError\",\"evalue\":\"bad\",\"traceback\":[\"l1\",\"l2\"]}")))
                .isEqualTo(new CodeOutput.Error("ValueError", "bad", List.of("l1", "l2")));
        assertThat(IopubOutputs.parse("clear_output", json("{\"wait\":true}"))).isEqualTo(new CodeOutput.Clear(true));
        assertThat(IopubOutputs.parse("status", json("{\"execution_state\":\"idle\"}")))
                .isNull();
        assertThat(IopubOutputs.parse("execute_input", json("{}"))).isNull();
    }

    static MimeValue byType(List<MimeValue> vs, String type) {
        return vs.stream().filter(v -> v.mimeType().equals(type)).findFirst().orElseThrow();
    }
}
