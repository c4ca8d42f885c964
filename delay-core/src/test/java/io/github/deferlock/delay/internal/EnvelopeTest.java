package io.github.deferlock.delay.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

final class EnvelopeTest {

    private static byte[] envelope(String head, byte[] field) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(head.getBytes(StandardCharsets.UTF_8));
        out.writeBytes(field);
        return out.toByteArray();
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void parse_envelopeWithoutHeaders_asThePreviousVersionStoredIt_readsThePayloadAlone() {
        Envelope env = Envelope.parse(utf8("00000000002aw3|||{\"text\":\"a|b\",\"n\":1}"));
        assertThat(env.state()).isEqualTo('w');
        assertThat(env.attempts()).isEqualTo(3);
        assertThat(env.receipt()).isEmpty();
        assertThat(env.dueMs()).isEqualTo(Envelope.NO_DUE);
        assertThat(env.headers()).isEmpty();
        assertThat(env.headersOffset()).isEqualTo(-1);
        assertThat(env.payloadText()).isEqualTo("{\"text\":\"a|b\",\"n\":1}");
    }

    @Test
    void parse_envelopeWithHeaders_splitsHeadersFromThePayload() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        headers.put("tenant", "ä|1:2"); // separators and multibyte text inside values
        headers.put("empty", "");
        byte[] raw = envelope("00000000002af2|1f|1700000000000|", HeaderCodec.tail(headers, utf8("[1,2]")));

        Envelope env = Envelope.parse(raw);
        assertThat(env.state()).isEqualTo('f');
        assertThat(env.attempts()).isEqualTo(2);
        assertThat(env.receipt()).isEqualTo("1f");
        assertThat(env.dueMs()).isEqualTo(1_700_000_000_000L);
        assertThat(env.headers()).containsExactlyEntriesOf(headers);
        assertThat(env.payloadText()).isEqualTo("[1,2]");
        assertThat(env.payloadLength()).isEqualTo(5);
    }

    @Test
    void parse_envelopeWithPriorityKeyAndHeaders_readsEachPart() {
        Map<String, String> headers = Map.of("h", "v");
        String key = "t:1|\u00e4\u0000{x}";
        byte[] raw = envelope("00000000002aw0|||", HeaderCodec.tail(7, key, headers, utf8("{\"n\":1}")));
        Envelope env = Envelope.parse(raw);
        assertThat(env.priority()).isEqualTo(7);
        assertThat(env.key()).isEqualTo(key);
        assertThat(env.headers()).containsExactlyEntriesOf(headers);
        assertThat(env.payloadText()).isEqualTo("{\"n\":1}");

        Envelope keyOnly = Envelope.parse(envelope("00000000002aw0|||", HeaderCodec.tail(0, "k", Map.of(), utf8("1"))));
        assertThat(keyOnly.priority()).isZero();
        assertThat(keyOnly.key()).isEqualTo("k");
        assertThat(keyOnly.headers()).isEmpty();
        assertThat(keyOnly.payloadText()).isEqualTo("1");
        assertThat(Envelope.parse(utf8("00000000002aw0|||{}")).key()).isNull();
    }

    @Test
    void tail_withoutHeaders_isThePayloadItself_soOldReadersSeeNoChange() {
        byte[] payload = utf8("{\"a\":1}");
        assertThat(HeaderCodec.tail(Map.of(), payload)).isSameAs(payload);
    }

    @Test
    void parse_negativeRequestedDueTime_isKept() {
        Envelope env = Envelope.parse(utf8("000000000001w0||-5000|{}"));
        assertThat(env.dueMs()).isEqualTo(-5000);
    }

    @Test
    void deadCause_readsTheCodeInTheDeadEnvelope_andUnknownForAnOldOne() {
        assertThat(Envelope.parse(utf8("000000000001x3|t||{}")).deadCause()).isEqualTo(DeadCause.VISIBILITY_TIMEOUT);
        assertThat(Envelope.parse(utf8("000000000001x3|a||{}")).deadCause()).isEqualTo(DeadCause.ATTEMPTS_EXHAUSTED);
        assertThat(Envelope.parse(utf8("000000000001x0|d||{}")).deadCause()).isEqualTo(DeadCause.DEAD_LETTERED);
        assertThat(Envelope.parse(utf8("000000000001x1|u||{}")).deadCause()).isEqualTo(DeadCause.UNDECODABLE_PAYLOAD);
        assertThat(Envelope.parse(utf8("000000000001x3|||{}")).deadCause()).isEqualTo(DeadCause.UNKNOWN);
    }

    @Test
    void headers_malformedBlock_isRefused_notMisread() {
        // a block that claims a 9-byte key where only 3 bytes are left
        byte[] raw = envelope("000000000001w0|||", utf8("\u001e5:9:abc{}"));
        Envelope env = Envelope.parse(raw);
        assertThatThrownBy(env::headers)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("malformed job headers");
    }

    @Test
    void parse_blockLengthPastTheEnd_isReadAsPayload_soTheDecoderRefusesIt() {
        byte[] raw = envelope("000000000001w0|||", utf8("\u001e99:ab"));
        Envelope env = Envelope.parse(raw);
        assertThat(env.headers()).isEmpty();
        assertThat(env.payloadText()).isEqualTo("\u001e99:ab");
    }

    @Test
    void parse_notAnEnvelope_isRefused() {
        assertThatThrownBy(() -> Envelope.parse(utf8("short"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Envelope.parse(utf8("000000000001w0 no separators")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("separator");
    }
}
