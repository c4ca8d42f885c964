package io.github.deferlock.delay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.deferlock.delay.internal.Envelope;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

final class PayloadCodecTest {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private static PayloadCodec<Msg> codec(int maxBytes) {
        return new PayloadCodec<>("q", MAPPER.readerFor(Msg.class), MAPPER.writerFor(Msg.class), maxBytes);
    }

    private static Envelope stored(byte[] field) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes("000000000007f1|3|1700000000000|".getBytes(StandardCharsets.US_ASCII));
        out.writeBytes(field);
        return Envelope.parse(out.toByteArray());
    }

    @Test
    void field_thenDecode_givesBackThePayloadAndTheHeaders() throws IOException {
        PayloadCodec<Msg> codec = codec(1000);
        Map<String, String> headers = Map.of("traceparent", "00-abc-def-01");
        Envelope env = stored(codec.field(headers, new Msg("héllo|", 7)));
        assertThat(codec.decode(env)).isEqualTo(new Msg("héllo|", 7));
        assertThat(env.headers()).isEqualTo(headers);
    }

    @Test
    void decode_payloadStoredByThePreviousVersion_withoutHeaders() throws IOException {
        Envelope env = stored("{\"text\":\"old\",\"n\":1}".getBytes(StandardCharsets.UTF_8));
        assertThat(codec(1000).decode(env)).isEqualTo(new Msg("old", 1));
        assertThat(env.headers()).isEmpty();
    }

    @Test
    void field_withoutHeaders_isTheJsonAlone() {
        assertThat(new String(codec(1000).field(Map.of(), new Msg("a", 1)), StandardCharsets.UTF_8))
                .isEqualTo("{\"text\":\"a\",\"n\":1}");
    }

    @Test
    void encode_overTheLimit_isRefusedNamingSizeLimitAndQueue() {
        assertThatThrownBy(() -> codec(10).encode(new Msg("too long for ten bytes", 1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("payload of 39 bytes is over the limit of 10 bytes (maxPayloadBytes) for queue 'q'");
    }

    @Test
    void encode_null_isRefused() {
        assertThatThrownBy(() -> codec(10).encode(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("payload cannot be null");
    }

    @Test
    void decode_notThePayloadType_throws() {
        Envelope env = stored("{\"text\":\"x\",\"n\":\"not a number\"}".getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> codec(1000).decode(env)).isInstanceOf(IOException.class);
    }
}
