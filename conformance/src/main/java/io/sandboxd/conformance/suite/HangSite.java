package io.sandboxd.conformance.suite;

/**
 * Where a check that ran out of time was waiting, from its thread's stack: the client call into
 * the runtime it is stuck in and the line of the check that made it. "CODE-EXEC-001 did not finish"
 * alone leaves a reader to guess between a context that never started and an execution that never
 * ended.
 */
final class HangSite {
    private static final String SUITE = "io.sandboxd.conformance.";
    private static final String CLIENT = "io.sandboxd.client.";

    private HangSite() {}

    /**
     * "waiting in CodeContexts.create, called at CodeChecks.java:57" when a client call is on the
     * stack below the suite's innermost frame, "at CodeChecks.java:57 (CodeChecks.exec001)" when
     * the check waits in code of its own, and "" when no frame of the suite is on the stack (the
     * thread already ended).
     */
    static String describe(StackTraceElement[] stack) {
        for (int i = 0; i < stack.length; i++) {
            if (!stack[i].getClassName().startsWith(SUITE)) {
                continue;
            }
            String file = stack[i].getFileName(); // none for classes compiled without debug information
            String at = (file != null ? file : simpleName(stack[i].getClassName())) + ":" + stack[i].getLineNumber();
            // the client frame nearest the suite's is the public method the check called
            for (int j = i - 1; j >= 0; j--) {
                if (stack[j].getClassName().startsWith(CLIENT)) {
                    return "waiting in " + simpleName(stack[j].getClassName()) + "." + stack[j].getMethodName()
                            + ", called at " + at;
                }
            }
            return "at " + at + " (" + simpleName(stack[i].getClassName()) + "." + stack[i].getMethodName() + ")";
        }
        return "";
    }

    private static String simpleName(String className) {
        String s = className.substring(className.lastIndexOf('.') + 1);
        int nested = s.indexOf('$');
        return nested < 0 ? s : s.substring(0, nested);
    }
}
