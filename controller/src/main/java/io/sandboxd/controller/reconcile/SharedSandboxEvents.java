package io.sandboxd.controller.reconcile;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.OperatorException;
import io.javaoperatorsdk.operator.processing.event.Event;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.AbstractEventSource;
import io.javaoperatorsdk.operator.processing.event.source.SecondaryToPrimaryMapper;
import io.sandboxd.controller.model.Sandbox;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * A claim or pool controller's Sandbox event source, with no watch of its own: events come from the
 * Sandbox controller's ({@link SharedSandboxes}), and its secondary resources are read there. An
 * event that {@code concerns} its primaries sets off a reconcile of each one {@code toPrimaries}
 * names. Its start waits for that cache's first list, so no reconcile reads an unsynced cache.
 */
final class SharedSandboxEvents<P extends HasMetadata> extends AbstractEventSource<Sandbox, P>
        implements SharedSandboxes.SandboxListener {
    /** Which adds and updates concern the primaries; every delete does. */
    interface Concern {
        /**
         * @param old the version before, null for an add
         * @param news false for the echo of the claim controller's own write, or an older version
         */
        boolean test(Sandbox old, Sandbox now, boolean news);
    }

    private final SharedSandboxes source;
    private final String controller;
    private final SecondaryToPrimaryMapper<Sandbox> toPrimaries;
    private final Concern concerns;
    private final Function<P, List<Sandbox>> secondaries;

    /**
     * @param controller who waits for the first list, for the error when it does not come
     * @param secondaries a primary's Sandboxes, read from {@code source}
     */
    SharedSandboxEvents(
            String name,
            String controller,
            SharedSandboxes source,
            SecondaryToPrimaryMapper<Sandbox> toPrimaries,
            Concern concerns,
            Function<P, List<Sandbox>> secondaries) {
        super(Sandbox.class, name);
        this.source = source;
        this.controller = controller;
        this.toPrimaries = toPrimaries;
        this.concerns = concerns;
        this.secondaries = secondaries;
        source.listen(this);
    }

    @Override
    public void start() throws OperatorException {
        source.awaitSynced(controller);
        super.start();
    }

    @Override
    public void added(Sandbox sb, boolean news) {
        if (concerns.test(null, sb, news)) notifyPrimaries(sb);
    }

    @Override
    public void updated(Sandbox old, Sandbox sb, boolean news) {
        if (concerns.test(old, sb, news)) notifyPrimaries(sb);
    }

    @Override
    public void deleted(Sandbox sb) {
        notifyPrimaries(sb);
    }

    private void notifyPrimaries(Sandbox sb) {
        if (!isRunning()) return; // before start every primary's first pass reads the cache anyway
        for (ResourceID id : toPrimaries.toPrimaryResourceIDs(sb))
            getEventHandler().handleEvent(new Event(id));
    }

    @Override
    public Set<Sandbox> getSecondaryResources(P primary) {
        return new HashSet<>(secondaries.apply(primary));
    }
}
