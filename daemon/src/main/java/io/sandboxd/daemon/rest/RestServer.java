package io.sandboxd.daemon.rest;

import io.sandboxd.daemon.cli.DaemonServices;

import java.io.IOException;

/** The REST API on --rest-port (CONTRACT §2). Placeholder until the REST transport lands. */
public final class RestServer {
    private final DaemonServices services;

    public RestServer(DaemonServices services) {
        this.services = services;
    }

    public void start() throws IOException {
        // placeholder: binds nothing until the REST transport lands
    }

    public int port() {
        return -1;
    }

    public void stop(long deadlineNanos) {
    }
}
