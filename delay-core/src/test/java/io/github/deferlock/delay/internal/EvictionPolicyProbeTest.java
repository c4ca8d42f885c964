package io.github.deferlock.delay.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

final class EvictionPolicyProbeTest {

    @Test
    void fromInfo_readsThePolicyLine() {
        String info = "# Memory\r\nused_memory:1000\r\nmaxmemory_policy:allkeys-lru\r\nmem_fragmentation_ratio:1.2\r\n";
        assertThat(EvictionPolicyProbe.fromInfo(info)).contains("allkeys-lru");
    }

    @Test
    void fromInfo_withoutThePolicyLine_isEmpty() {
        assertThat(EvictionPolicyProbe.fromInfo("# Memory\nused_memory:1000\n")).isEmpty();
    }
}
