package io.sandboxd.router.proxy;

import io.netty.handler.codec.http2.Http2Settings;

/** The HTTP/2 limits the router advertises on both sides (each is named in the settings it sends). */
final class H2Settings {
    /** Concurrent streams per client connection. */
    static final int MAX_CONCURRENT_STREAMS = 1000;
    /**
     * Per-stream receive window, the most the router buffers for one stream in one direction: the
     * peer may send no more until the router has passed bytes on to the other side.
     */
    static final int STREAM_WINDOW = 1 << 20;

    private H2Settings() {}

    static Http2Settings server() {
        return Http2Settings.defaultSettings()
                .maxConcurrentStreams(MAX_CONCURRENT_STREAMS)
                .initialWindowSize(STREAM_WINDOW)
                .maxHeaderListSize(RequestFraming.MAX_HEADER_BYTES);
    }

    static Http2Settings client() {
        return Http2Settings.defaultSettings()
                .pushEnabled(false)
                .initialWindowSize(STREAM_WINDOW)
                .maxHeaderListSize(RequestFraming.MAX_HEADER_BYTES);
    }
}
