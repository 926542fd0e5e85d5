package io.sandboxd.controller.reconcile;

import io.javaoperatorsdk.operator.OperatorException;
import io.javaoperatorsdk.operator.processing.event.Event;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.AbstractEventSource;
import io.javaoperatorsdk.operator.processing.event.source.SecondaryToPrimaryMapper;
import io.javaoperatorsdk.operator.processing.event.source.filter.OnUpdateFilter;
import io.sandboxd.controller.model.Sandbox;
import io.sandboxd.controller.model.SandboxWarmPool;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * The pool controller's Sandbox event source, with no watch of its own: events come from the
 * Sandbox controller's ({@link SharedSandboxes}), and reads go to its cache. Its start waits for
 * that cache's first list, so a pool reconcile never reads an unsynced cache.
 */
final class PoolSandboxEvents extends AbstractEventSource<Sandbox, SandboxWarmPool>
        implements SharedSandboxes.SandboxListener {
    private final SharedSandboxes source;
    private final SecondaryToPrimaryMapper<Sandbox> toPools;
    private final OnUpdateFilter<Sandbox> relevantUpdate;
    private final Function<SandboxWarmPool, List<Sandbox>> members;

    /**
     * @param toPools the pools an event concerns
     * @param relevantUpdate which updates concern them at all (new, old)
     * @param members a pool's members, read from {@code source}
     */
    PoolSandboxEvents(
            SharedSandboxes source,
            SecondaryToPrimaryMapper<Sandbox> toPools,
            OnUpdateFilter<Sandbox> relevantUpdate,
            Function<SandboxWarmPool, List<Sandbox>> members) {
        super(Sandbox.class, "pool-sandboxes");
        this.source = source;
        this.toPools = toPools;
        this.relevantUpdate = relevantUpdate;
        this.members = members;
        source.listen(this);
    }

    @Override
    public void start() throws OperatorException {
        source.awaitSynced("pool controller");
        super.start();
    }

    /** Every event counts here, the claim controller's own writes too: an adoption moves a member out. */
    @Override
    public void added(Sandbox sb, boolean news) {
        notifyPools(sb);
    }

    @Override
    public void updated(Sandbox old, Sandbox sb, boolean news) {
        if (relevantUpdate.accept(sb, old)) notifyPools(sb);
    }

    @Override
    public void deleted(Sandbox sb) {
        notifyPools(sb);
    }

    private void notifyPools(Sandbox sb) {
        if (!isRunning()) return; // before start the pool's first pass reads the whole cache anyway
        for (ResourceID pool : toPools.toPrimaryResourceIDs(sb))
            getEventHandler().handleEvent(new Event(pool));
    }

    @Override
    public Set<Sandbox> getSecondaryResources(SandboxWarmPool pool) {
        return new HashSet<>(members.apply(pool));
    }
}
