package io.sandboxd.controller.reconcile;

import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
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
 * The pool controller's Sandbox event source, with no informer of its own: events come relayed from
 * the claim controller's {@link SharedSandboxInformer}, and reads go to that informer's cache (which
 * also holds the claim controller's recent writes). Starting it starts that informer if the claim
 * controller has not yet, so a pool reconcile never reads an unsynced cache; stopping it leaves the
 * informer to its owner.
 */
final class PoolSandboxEvents extends AbstractEventSource<Sandbox, SandboxWarmPool>
        implements ResourceEventHandler<Sandbox> {
    private final SharedSandboxInformer source;
    private final SecondaryToPrimaryMapper<Sandbox> toPools;
    private final OnUpdateFilter<Sandbox> relevantUpdate;
    private final Function<SandboxWarmPool, List<Sandbox>> members;

    /**
     * @param toPools the pools an event concerns
     * @param relevantUpdate which updates concern them at all (new, old)
     * @param members a pool's members, read from {@code source}'s cache
     */
    PoolSandboxEvents(
            SharedSandboxInformer source,
            SecondaryToPrimaryMapper<Sandbox> toPools,
            OnUpdateFilter<Sandbox> relevantUpdate,
            Function<SandboxWarmPool, List<Sandbox>> members) {
        super(Sandbox.class, "pool-sandboxes");
        this.source = source;
        this.toPools = toPools;
        this.relevantUpdate = relevantUpdate;
        this.members = members;
        source.relayTo(this);
    }

    @Override
    public void start() throws OperatorException {
        source.start();
        super.start();
    }

    @Override
    public void onAdd(Sandbox sb) {
        notifyPools(sb);
    }

    @Override
    public void onUpdate(Sandbox old, Sandbox sb) {
        if (relevantUpdate.accept(sb, old)) notifyPools(sb);
    }

    @Override
    public void onDelete(Sandbox sb, boolean deletedFinalStateUnknown) {
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
