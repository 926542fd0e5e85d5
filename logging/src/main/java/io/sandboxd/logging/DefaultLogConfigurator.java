package io.sandboxd.logging;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.core.spi.ContextAwareBase;

/**
 * Found by logback through the ServiceLoader before it would look for XML: the text format until
 * {@link LogSetup#install} applies the flag, and no logback.xml lookup or Joran parse at startup.
 */
public final class DefaultLogConfigurator extends ContextAwareBase implements Configurator {
    @Override
    public ExecutionStatus configure(LoggerContext context) {
        LogSetup.configure(context, LogFormat.TEXT);
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }
}
