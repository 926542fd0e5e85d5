package io.sandboxd.router.resolve;

/** The route names a Service that is not known to belong to a Sandbox, so its name is never looked up. */
public final class NoSandboxServiceException extends Exception {
    public NoSandboxServiceException(String namespace, String name) {
        super("no Service " + namespace + "/" + name + " owned by a Sandbox", null, false, false);
    }
}
