package io.sandboxd.daemon.code;

import java.util.List;

/** One output of an execution, in the order the kernel produced it (runtime-contract §4.4). */
public sealed interface CodeOutput {
    /** What the output counts against {@code --code-output-limit}: UTF-8 bytes of text, raw bytes of binaries. */
    long size();

    /** stdout / stderr text. */
    record Stream(boolean stderr, String text) implements CodeOutput {
        @Override
        public long size() {
            return Utf8Length.of(text);
        }

        /** The first {@code chars} characters, never splitting a surrogate pair. */
        Stream prefix(int chars) {
            int n = Character.isHighSurrogate(text.charAt(Math.max(0, chars - 1))) ? chars - 1 : chars;
            return new Stream(stderr, text.substring(0, Math.max(0, n)));
        }

        /** From character {@code from} on, never splitting a surrogate pair. */
        Stream suffix(int from) {
            int n = from < text.length() && Character.isLowSurrogate(text.charAt(from)) ? from + 1 : from;
            return new Stream(stderr, text.substring(Math.min(n, text.length())));
        }
    }

    enum RichKind {
        DISPLAY_DATA,
        EXECUTE_RESULT,
        UPDATE_DISPLAY_DATA
    }

    /** A MIME bundle: display data, an execute result or an update of a display. */
    record Rich(RichKind kind, List<MimeValue> data, String metadataJson, int executionCount, String displayId)
            implements CodeOutput {
        @Override
        public long size() {
            long n = Utf8Length.of(metadataJson);
            for (MimeValue v : data) {
                n += v.size();
            }
            return n;
        }
    }

    /** An exception the code raised. */
    record Error(String name, String value, List<String> traceback) implements CodeOutput {
        @Override
        public long size() {
            long n = Utf8Length.of(name) + Utf8Length.of(value);
            for (String t : traceback) {
                n += Utf8Length.of(t);
            }
            return n;
        }
    }

    /** clear_output. */
    record Clear(boolean await) implements CodeOutput {
        @Override
        public long size() {
            return 0;
        }
    }

    /** What {@code --code-output-limit} dropped between the head and the tail. */
    record Truncation(long droppedOutputs, long droppedBytes) implements CodeOutput {
        @Override
        public long size() {
            return 0;
        }
    }
}
