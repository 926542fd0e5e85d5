package io.sandboxd.controller.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.sandboxd.controller.core.Copies;
import org.junit.jupiter.api.Test;

class SpecJsonByValueTest {
    private static PodSpec spec(String image) {
        return new PodSpecBuilder()
                .addNewContainer()
                .withName("main")
                .withImage(image)
                .endContainer()
                .build();
    }

    @Test
    void anEqualSpecInAnotherObjectFindsTheSameJson() {
        SpecJsonByValue<PodSpec> memo = new SpecJsonByValue<>();
        String first = memo.json(spec("img:1"));
        assertThat(first).isEqualTo(Copies.json(spec("img:1")));
        assertThat(memo.json(spec("img:1"))).isSameAs(first);
        assertThat(memo.json(spec("img:2"))).isEqualTo(Copies.json(spec("img:2")));
    }

    @Test
    void changingTheCallersObjectLaterChangesNothingFound() {
        SpecJsonByValue<PodSpec> memo = new SpecJsonByValue<>();
        PodSpec mine = spec("img:1");
        String json = memo.json(mine);
        mine.getContainers().get(0).setImage("img:changed");
        assertThat(memo.json(spec("img:1"))).isSameAs(json);
        assertThat(memo.json(mine)).isEqualTo(Copies.json(spec("img:changed")));
    }

    @Test
    void theOldestSpecGivesWayPastCapacity() {
        SpecJsonByValue<PodSpec> memo = new SpecJsonByValue<>();
        String first = memo.json(spec("img:0"));
        for (int i = 1; i < SpecJsonByValue.CAPACITY; i++) memo.json(spec("img:" + i));
        assertThat(memo.json(spec("img:0"))).as("still remembered at capacity").isSameAs(first);
        for (int i = 1; i <= SpecJsonByValue.CAPACITY; i++) memo.json(spec("img:new-" + i));
        String again = memo.json(spec("img:0"));
        assertThat(again).as("made afresh").isNotSameAs(first).isEqualTo(first);
    }
}
