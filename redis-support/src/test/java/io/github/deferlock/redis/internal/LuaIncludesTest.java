package io.github.deferlock.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

final class LuaIncludesTest {

    private static Function<String, InputStream> files(Map<String, String> files) {
        return name -> {
            String text = files.get(name);
            return text == null ? null : new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
        };
    }

    @Test
    void resolve_replacesAnIncludeLineWithTheFragment() {
        String out = LuaIncludes.resolve(
                "main.lua",
                files(Map.of(
                        "main.lua", "-- main\n--@include frag.lua\nreturn f()\n",
                        "frag.lua", "local function f() return 1 end\n")));

        assertThat(out).isEqualTo("-- main\nlocal function f() return 1 end\n\nreturn f()\n\n");
        assertThat(out).doesNotContain("--@include");
    }

    @Test
    void resolve_includesAFragmentOnce_evenWhenFragmentsIncludeItToo() {
        String out = LuaIncludes.resolve(
                "main.lua",
                files(Map.of(
                        "main.lua", "--@include a.lua\n--@include b.lua\nreturn 0\n",
                        "a.lua", "--@include base.lua\nlocal A = 1\n",
                        "b.lua", "--@include base.lua\nlocal B = 2\n",
                        "base.lua", "local BASE = 0\n")));

        assertThat(out.split("local BASE = 0", -1)).hasSize(2);
        assertThat(out.indexOf("local BASE")).isLessThan(out.indexOf("local A"));
        assertThat(out.indexOf("local A =")).isLessThan(out.indexOf("local B ="));
    }

    @Test
    void resolve_fallsBackToTheSharedFragments() {
        String out = LuaIncludes.resolve("main.lua", files(Map.of("main.lua", "--@include notice.lua\nreturn 1\n")));

        assertThat(out).contains("local function notice(shardedFlag, channel, message)");
        assertThat(out).contains("'SPUBLISH'").contains("'PUBLISH'");
    }

    @Test
    void resolve_aMissingFragment_namesIt() {
        assertThatThrownBy(() -> LuaIncludes.resolve("main.lua", files(Map.of("main.lua", "--@include nope.lua\n"))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("Lua fragment resource is missing: nope.lua");
    }

    @Test
    void resolve_aMissingScript_namesIt() {
        assertThatThrownBy(() -> LuaIncludes.resolve("main.lua", files(Map.of())))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("script resource is missing: main.lua");
    }

    @Test
    void resolve_aCycle_isAnError() {
        assertThatThrownBy(() -> LuaIncludes.resolve(
                        "main.lua",
                        files(Map.of(
                                "main.lua", "--@include a.lua\n",
                                "a.lua", "--@include b.lua\n",
                                "b.lua", "--@include a.lua\n"))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("Lua include cycle: main.lua -> a.lua -> b.lua -> a.lua");
    }

    @Test
    void scriptLoad_hashesTheResolvedText() {
        Script script =
                Script.load(files(Map.of("s.lua", "--@include f.lua\nreturn x\n", "f.lua", "local x = 1\n")), "s.lua");

        assertThat(new String(script.body(), StandardCharsets.UTF_8)).isEqualTo("local x = 1\n\nreturn x\n\n");
        assertThat(script.sha())
                .isEqualTo(Script.of("s.lua", "local x = 1\n\nreturn x\n\n").sha());
        assertThat(script.sha()).hasSize(40).matches("[0-9a-f]+");
    }
}
