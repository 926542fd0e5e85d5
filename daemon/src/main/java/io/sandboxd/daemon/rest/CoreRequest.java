package io.sandboxd.daemon.rest;

import io.javalin.http.Context;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import org.eclipse.jetty.server.Request;

/** Jetty's own request under the servlet API: its body reads hand out the network buffers. */
final class CoreRequest {
    private CoreRequest() {}

    static Request of(Context ctx) {
        ServletContextRequest r = ServletContextRequest.getServletContextRequest(ctx.req());
        if (r == null) {
            throw new IllegalStateException("not running on Jetty's servlet container");
        }
        return r;
    }
}
