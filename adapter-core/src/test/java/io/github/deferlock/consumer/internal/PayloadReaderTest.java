package io.github.deferlock.consumer.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

final class PayloadReaderTest {
    record Order(String id, String key) {}

    private final PayloadReader<Order> reader = new PayloadReader<>(new ObjectMapper().readerFor(Order.class));

    @Test
    void aGoodBody_decodes_andPoisonSaysWhy() {
        assertThat(reader.read("{\"id\":\"1\",\"key\":\"k\"}").message()).isEqualTo(new Order("1", "k"));
        assertThat(reader.read("{\"id\":\"1\"}".getBytes(StandardCharsets.UTF_8))
                        .message())
                .isEqualTo(new Order("1", null));
        assertThat(reader.read("{not json").poison()).startsWith("cannot decode the body");
        assertThat(reader.read("null").poison()).isEqualTo("the body is JSON null");
        assertThat(reader.read((byte[]) null).poison()).isEqualTo("the body is absent");
    }
}
