package io.sandboxd.daemon.code;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The iopub messages that are outputs (stream, display_data, execute_result,
 * update_display_data, error, clear_output) turned into {@link CodeOutput}s. Pure.
 *
 * <p>MIME bundles: a string value of a binary type (image/* but SVG, audio/*, video/*,
 * application/pdf, application/octet-stream) is base64 and is decoded to its bytes; other strings
 * are text, a list of strings is joined (nbformat's multi-line form), and any other JSON value is
 * kept as serialized JSON.
 */
final class IopubOutputs {
    private IopubOutputs() {}

    /** @return the output, or null when the message is not an output (status, execute_input, ...) */
    static CodeOutput parse(String msgType, JsonObject content) {
        return switch (msgType) {
            case "stream" ->
                new CodeOutput.Stream(
                        "stderr".equals(WireCodec.string(content, "name")), WireCodec.string(content, "text"));
            case "display_data" -> rich(CodeOutput.RichKind.DISPLAY_DATA, content);
            case "execute_result" -> rich(CodeOutput.RichKind.EXECUTE_RESULT, content);
            case "update_display_data" -> rich(CodeOutput.RichKind.UPDATE_DISPLAY_DATA, content);
            case "error" ->
                new CodeOutput.Error(
                        WireCodec.string(content, "ename"), WireCodec.string(content, "evalue"), strings(content));
            case "clear_output" -> new CodeOutput.Clear(bool(content, "wait"));
            default -> null;
        };
    }

    private static CodeOutput.Rich rich(CodeOutput.RichKind kind, JsonObject content) {
        List<MimeValue> values = new ArrayList<>();
        JsonElement data = content.get("data");
        if (data != null && data.isJsonObject()) {
            for (Map.Entry<String, JsonElement> e : data.getAsJsonObject().entrySet()) {
                values.add(mime(e.getKey(), e.getValue()));
            }
        }
        JsonElement metadata = content.get("metadata");
        JsonElement count = content.get("execution_count");
        String displayId = "";
        JsonElement transient_ = content.get("transient");
        if (transient_ != null && transient_.isJsonObject()) {
            displayId = WireCodec.string(transient_.getAsJsonObject(), "display_id");
        }
        return new CodeOutput.Rich(
                kind,
                List.copyOf(values),
                metadata != null && metadata.isJsonObject() ? metadata.toString() : "{}",
                count != null
                                && count.isJsonPrimitive()
                                && count.getAsJsonPrimitive().isNumber()
                        ? count.getAsInt()
                        : 0,
                displayId);
    }

    static MimeValue mime(String type, JsonElement value) {
        String text = null;
        if (value.isJsonPrimitive() && value.getAsJsonPrimitive().isString()) {
            text = value.getAsString();
        } else if (value.isJsonArray() && allStrings(value.getAsJsonArray())) {
            StringBuilder b = new StringBuilder();
            value.getAsJsonArray().forEach(s -> b.append(s.getAsString()));
            text = b.toString();
        }
        if (text == null || isJsonType(type)) {
            return MimeValue.json(type, value.toString());
        }
        if (isBinaryType(type)) {
            try {
                return MimeValue.binary(type, Base64.getMimeDecoder().decode(text));
            } catch (IllegalArgumentException notBase64) {
                return MimeValue.text(type, text);
            }
        }
        return MimeValue.text(type, text);
    }

    static boolean isBinaryType(String type) {
        String t = type.toLowerCase(Locale.ROOT);
        return (t.startsWith("image/") && !t.startsWith("image/svg"))
                || t.startsWith("audio/")
                || t.startsWith("video/")
                || t.equals("application/pdf")
                || t.equals("application/octet-stream");
    }

    private static boolean isJsonType(String type) {
        String t = type.toLowerCase(Locale.ROOT);
        return t.equals("application/json") || t.endsWith("+json");
    }

    private static boolean allStrings(JsonArray a) {
        for (JsonElement e : a) {
            if (!e.isJsonPrimitive() || !e.getAsJsonPrimitive().isString()) {
                return false;
            }
        }
        return true;
    }

    private static List<String> strings(JsonObject content) {
        List<String> out = new ArrayList<>();
        JsonElement tb = content.get("traceback");
        if (tb != null && tb.isJsonArray()) {
            for (JsonElement e : tb.getAsJsonArray()) {
                out.add(e.isJsonPrimitive() ? e.getAsString() : e.toString());
            }
        }
        return List.copyOf(out);
    }

    private static boolean bool(JsonObject o, String name) {
        JsonElement e = o.get(name);
        return e != null && e.isJsonPrimitive() && e.getAsJsonPrimitive().isBoolean() && e.getAsBoolean();
    }
}
