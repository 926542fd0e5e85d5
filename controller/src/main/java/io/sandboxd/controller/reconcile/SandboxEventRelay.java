package io.sandboxd.controller.reconcile;

import io.javaoperatorsdk.operator.OperatorException;
import io.javaoperatorsdk.operator.processing.event.source.AbstractEventSource;
import io.javaoperatorsdk.operator.processing.event.source.ResourceEventAware;
import io.sandboxd.controller.model.Sandbox;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An event source of the Sandbox controller that sets off nothing there: JOSDK hands it every
 * event of that controller's primaries (before the controller's own filters), and it passes them
 * on to {@link SharedSandboxes}. JOSDK starts it after the primaries' informer has listed.
 *
 * <p>JOSDK calls it inside the Sandbox controller's own event handling, before that controller
 * queues its reconcile: a failure here is logged and goes no further, so a fault on the claim or
 * pool side can never cost a Sandbox its reconcile.
 */
final class SandboxEventRelay extends AbstractEventSource<Void, Sandbox> implements ResourceEventAware<Sandbox> {
    private static final Logger LOG = LoggerFactory.getLogger(SandboxEventRelay.class);
    private final SharedSandboxes to;

    SandboxEventRelay(SharedSandboxes to) {
        super(Void.class, "sandbox-relay");
        this.to = to;
    }

    @Override
    public void start() throws OperatorException {
        super.start();
        to.synced();
    }

    @Override
    public void onResourceCreated(Sandbox sb) {
        relay(sb, () -> to.added(sb));
    }

    @Override
    public void onResourceUpdated(Sandbox sb, Sandbox old) {
        relay(sb, () -> to.updated(old, sb));
    }

    @Override
    public void onResourceDeleted(Sandbox sb) {
        relay(sb, () -> to.deleted(sb));
    }

    private static void relay(Sandbox sb, Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            LOG.atError()
                    .addKeyValue(
                            "sandbox",
                            sb.getMetadata().getNamespace() + "/"
                                    + sb.getMetadata().getName())
                    .setCause(e)
                    .log("the claim and pool controllers missed a Sandbox event");
        }
    }

    @Override
    public Set<Void> getSecondaryResources(Sandbox primary) {
        return Set.of();
    }
}
