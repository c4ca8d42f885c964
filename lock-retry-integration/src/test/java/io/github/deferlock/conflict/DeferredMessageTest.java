package io.github.deferlock.conflict;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Instant;
import org.junit.jupiter.api.Test;

final class DeferredMessageTest {
    private final ObjectMapper mapper = new ObjectMapper();

    /** Exactly what the previous version (a public record) stored. */
    private static final String STORED_BY_0_1 = "{\"handler\":\"orders\",\"key\":\"order:1\",\"messageId\":\"e-7\","
            + "\"message\":{\"orderId\":\"1\",\"amount\":3},\"deferrals\":2,\"firstConflictMillis\":1700000000000}";

    @Test
    void read_aDeferralStoredByThePreviousVersion() throws Exception {
        DeferredMessage dm = mapper.readValue(STORED_BY_0_1, DeferredMessage.class);
        assertThat(dm.handler()).isEqualTo("orders");
        assertThat(dm.key()).isEqualTo("order:1");
        assertThat(dm.messageId()).contains("e-7");
        assertThat(dm.deferrals()).isEqualTo(2);
        assertThat(dm.firstConflict()).isEqualTo(Instant.ofEpochMilli(1_700_000_000_000L));
        assertThat(mapper.readTree(dm.messageJson())).isEqualTo(mapper.readTree("{\"orderId\":\"1\",\"amount\":3}"));
    }

    @Test
    void write_keepsTheStoredFormat_fieldForField() throws Exception {
        DeferredMessage dm = mapper.readValue(STORED_BY_0_1, DeferredMessage.class);
        JsonNode written = mapper.valueToTree(dm);
        assertThat(written).isEqualTo(mapper.readTree(STORED_BY_0_1));
        assertThat(mapper.readValue(mapper.writeValueAsString(dm), DeferredMessage.class))
                .isEqualTo(dm);
    }

    @Test
    void read_withoutAMessageId() throws Exception {
        DeferredMessage dm = mapper.readValue(
                STORED_BY_0_1.replace("\"messageId\":\"e-7\"", "\"messageId\":null"), DeferredMessage.class);
        assertThat(dm.messageId()).isEmpty();
        assertThat(mapper.valueToTree(dm).get("messageId").isNull()).isTrue();
    }

    @Test
    void deferredAgain_countsUp_andKeepsTheFirstConflict() throws Exception {
        DeferredMessage first = DeferredMessage.first("h", "k", null, mapper.readTree("{}"), Instant.ofEpochMilli(5));
        DeferredMessage again = first.deferredAgain();
        assertThat(first.deferrals()).isEqualTo(1);
        assertThat(again.deferrals()).isEqualTo(2);
        assertThat(again.firstConflict()).isEqualTo(first.firstConflict());
    }

    @Test
    void read_refusesAnInvalidRecord() {
        assertThatThrownBy(() -> mapper.readValue(
                        STORED_BY_0_1.replace("\"deferrals\":2", "\"deferrals\":0"), DeferredMessage.class))
                .hasRootCauseInstanceOf(IllegalArgumentException.class)
                .hasRootCauseMessage("deferrals must be at least 1, not 0");
    }

    @Test
    void deadLetterReason_classifiesTheStoredReasons() {
        String persisted = DeadLetterReason.CONFLICT_PERSISTED.describe(": still taken after 20 deferrals over PT1M");
        assertThat(persisted).startsWith(ConflictAwareHandler.CONFLICT_PERSISTED);
        assertThat(DeadLetterReason.of(persisted)).contains(DeadLetterReason.CONFLICT_PERSISTED);
        assertThat(DeadLetterReason.of(DeadLetterReason.UNDECODABLE.describe(" for handler 'h' as X: bad")))
                .contains(DeadLetterReason.UNDECODABLE);
        assertThat(DeadLetterReason.of("failed on attempt 3 of 3: boom")).isEmpty();
        assertThat(DeadLetterReason.of(null)).isEmpty();
    }
}
