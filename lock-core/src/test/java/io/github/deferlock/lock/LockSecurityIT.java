package io.github.deferlock.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import io.github.deferlock.testing.RedisExtension;
import io.github.deferlock.testing.RedisServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.SslOptions;
import redis.clients.jedis.SslVerifyMode;

/** Lock security and bad input (issue 7, S1, S2, S4, S5). */
@ExtendWith(RedisExtension.class)
final class LockSecurityIT {

    /** Runs lock, contention with a cross-client wake-up, watchdog renewal and a script reload. */
    private static void representativeSuite(RedisServer server, RedisClient a, RedisClient b) {
        try (RedisLocks mine = RedisLocks.builder(a)
                        .defaultLease(Duration.ofMillis(1200))
                        .build();
                RedisLocks theirs = RedisLocks.builder(b).build()) {
            DistributedLock lock = mine.get("order:42");
            lock.lock();
            long token = lock.fencingToken();
            CompletableFuture<Long> rival = CompletableFuture.supplyAsync(() -> {
                DistributedLock other = theirs.get("order:42");
                if (!other.tryLock(Duration.ofSeconds(10))) {
                    return -1L;
                }
                long t = other.fencingToken();
                other.unlock();
                return t;
            });
            long heldSince = System.nanoTime();
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - heldSince) >= 1800);
            assertThat(lock.isHeldByCurrentThread()).isTrue(); // renewed past its 1.2 s lease
            lock.unlock();
            assertThat(rival.join()).isGreaterThan(token);
            try (Jedis admin = server.newConnection()) {
                admin.scriptFlush();
            }
            try (LockLease lease = mine.get("order:43").acquire(Duration.ZERO)) {
                assertThat(lease.isHeld()).isTrue();
            }
        }
    }

    /** S1: a user limited to {@code ~lock:*} and {@code &lock:*} without admin/dangerous commands suffices. */
    @Test
    void locks_aclUserLimitedToLockPrefix_workWithoutDeniedCommands(RedisServer server) {
        try (Jedis admin = server.newConnection()) {
            admin.aclSetUser(
                    "app",
                    "reset",
                    "on",
                    ">s3cret",
                    "~lock:*",
                    "resetchannels",
                    "&lock:*",
                    "+@all",
                    "-@admin",
                    "-@dangerous");
            admin.aclLogReset();
        }
        DefaultJedisClientConfig config = DefaultJedisClientConfig.builder()
                .clientSetInfoConfig(ClientSetInfoConfig.DISABLED) // CLIENT SETINFO is @admin on 6.2
                .user("app")
                .password("s3cret")
                .build();
        try (RedisClient a = RedisClient.builder()
                        .hostAndPort(server.hostAndPort())
                        .clientConfig(config)
                        .build();
                RedisClient b = RedisClient.builder()
                        .hostAndPort(server.hostAndPort())
                        .clientConfig(config)
                        .build()) {
            representativeSuite(server, a, b);
            try (Jedis admin = server.newConnection()) {
                // only the build-time eviction-policy check (INFO memory, @dangerous) is denied; build() then
                // logs at DEBUG and carries on
                assertThat(admin.aclLog()).as("commands the ACL denied").allSatisfy(e -> assertThat(e.getObject())
                        .isEqualTo("info"));
            }
            try (RedisLocks elsewhere =
                    RedisLocks.builder(a).keyPrefix("other:").build()) {
                assertThatThrownBy(() -> elsewhere.get("x").tryLock())
                        .isInstanceOf(LockException.class)
                        .hasMessageContaining("NOPERM");
            }
            assertThatThrownBy(() -> a.set("other:x", "1")).hasMessageContaining("NOPERM");
            assertThatThrownBy(() -> a.configGet("maxmemory")).hasMessageContaining("NOPERM");
        }
        try (Jedis admin = server.newConnection()) {
            assertThat(admin.keys("other:*")).isEmpty();
            admin.aclDelUser("app");
        }
    }

    /** S2: TLS with hostname verification works end to end, and a certificate for another host is refused. */
    @Test
    void locks_tlsWithHostnameVerification_workAndWrongHostCertRefused() throws Exception {
        assumeThat(TestCerts.opensslAvailable())
                .as("the openssl CLI makes the test certificates")
                .isTrue();
        TestCerts certs = TestCerts.newCa();
        Path[] good = certs.issue("good", "IP:127.0.0.1,DNS:localhost");
        Path[] wrong = certs.issue("wrong", "DNS:wrong.example.com");
        DefaultJedisClientConfig tls = DefaultJedisClientConfig.builder()
                .sslOptions(SslOptions.builder()
                        .truststore(certs.trustStore().toFile(), TestCerts.STORE_PASSWORD.toCharArray())
                        .trustStoreType("PKCS12")
                        .sslVerifyMode(SslVerifyMode.FULL) // chain and hostname
                        .build())
                .build();
        try (RedisServer server = startTls(good, certs);
                RedisClient a = RedisClient.builder()
                        .hostAndPort(new HostAndPort("127.0.0.1", server.tlsPort()))
                        .clientConfig(tls)
                        .build();
                RedisClient b = RedisClient.builder()
                        .hostAndPort(new HostAndPort("127.0.0.1", server.tlsPort()))
                        .clientConfig(tls)
                        .build()) {
            representativeSuite(server, a, b);
        }
        try (RedisServer server = startTls(wrong, certs);
                RedisClient client = RedisClient.builder()
                        .hostAndPort(new HostAndPort("127.0.0.1", server.tlsPort()))
                        .clientConfig(tls)
                        .build();
                RedisLocks locks = RedisLocks.builder(client).build();
                Jedis admin = server.newConnection()) {
            assertThatThrownBy(() -> locks.get("x").tryLock())
                    .isInstanceOf(LockException.class)
                    .hasStackTraceContaining("No subject alternative")
                    .hasStackTraceContaining("127.0.0.1");
            assertThat(admin.dbSize()).isZero();
        }
    }

    private static RedisServer startTls(Path[] certAndKey, TestCerts certs) {
        try {
            return RedisServer.builder()
                    .tls(certAndKey[0], certAndKey[1], certs.caCert)
                    .start();
        } catch (IllegalStateException e) {
            assumeThat(e.getMessage())
                    .as("this redis-server is built without TLS: " + e.getMessage())
                    .doesNotContainIgnoringCase("tls");
            throw e;
        }
    }

    private static long cachedScripts(RedisServer server) {
        try (Jedis admin = server.newConnection()) {
            return Long.parseLong(field(admin.info("memory"), "number_of_cached_scripts"));
        }
    }

    private static String field(String info, String name) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(name + ":")) {
                return line.substring(name.length() + 1).trim();
            }
        }
        throw new AssertionError(name + " not in INFO: " + info);
    }

    /** S4: the script cache holds the same scripts after 1 and after 300 distinct, odd lock names. */
    @Test
    void locks_300DistinctOddNames_scriptCacheDoesNotGrow(RedisServer server, RedisClient redis) {
        try (RedisLocks locks = RedisLocks.builder(redis).build()) {
            try (LockLease lease = locks.get("warm").acquire(Duration.ZERO)) {
                assertThat(lease.isHeld()).isTrue();
            }
            long before = cachedScripts(server);
            String[] odd = {"\"q'", "a\nb", "nul\0x", "{br}ace", "😀", "%7B", "\r\n*1\r\n$4\r\nPING"};
            for (int i = 0; i < 300; i++) {
                DistributedLock lock = locks.get(odd[i % odd.length] + i);
                lock.lock();
                lock.unlock();
            }
            assertThat(cachedScripts(server)).isEqualTo(before);
        }
    }

    /** S5: bad arguments fail fast with an exception naming the argument, and nothing reaches Redis. */
    @Test
    void locks_badArguments_failNamingTheArgumentAndWriteNothing(RedisServer server, RedisClient redis) {
        Duration forever = Duration.ofSeconds(Long.MAX_VALUE);
        try (Jedis admin = server.newConnection()) {
            admin.configResetStat();
        }
        try (RedisLocks locks = RedisLocks.builder(redis).build()) {
            DistributedLock lock = locks.get("ok");
            List<Object[]> cases = new ArrayList<>();
            cases.add(new Object[] {"redis", (ThrowingCallable) () -> RedisLocks.builder(null)});
            cases.add(new Object[] {
                "keyPrefix", (ThrowingCallable) () -> RedisLocks.builder(redis).keyPrefix(null)
            });
            cases.add(new Object[] {
                "keyPrefix", (ThrowingCallable) () -> RedisLocks.builder(redis).keyPrefix("a{")
            });
            cases.add(new Object[] {
                "defaultLease",
                (ThrowingCallable) () -> RedisLocks.builder(redis).defaultLease(null)
            });
            cases.add(new Object[] {
                "defaultLease",
                (ThrowingCallable) () -> RedisLocks.builder(redis).defaultLease(Duration.ZERO)
            });
            cases.add(new Object[] {
                "defaultLease",
                (ThrowingCallable) () -> RedisLocks.builder(redis).defaultLease(Duration.ofMillis(-1))
            });
            cases.add(new Object[] {
                "defaultLease",
                (ThrowingCallable) () -> RedisLocks.builder(redis).defaultLease(forever)
            });
            cases.add(new Object[] {
                "listener", (ThrowingCallable) () -> RedisLocks.builder(redis).listener(null)
            });
            cases.add(new Object[] {
                "clock", (ThrowingCallable) () -> RedisLocks.builder(redis).clock(null)
            });
            cases.add(new Object[] {
                "replicas", (ThrowingCallable) () -> RedisLocks.builder(redis).waitForReplicas(0, Duration.ofSeconds(1))
            });
            cases.add(new Object[] {
                "timeout", (ThrowingCallable) () -> RedisLocks.builder(redis).waitForReplicas(1, Duration.ZERO)
            });
            cases.add(new Object[] {"name", (ThrowingCallable) () -> locks.get(null)});
            cases.add(new Object[] {"name", (ThrowingCallable) () -> locks.get("")});
            cases.add(new Object[] {"name", (ThrowingCallable) () -> locks.get("\uD800")});
            cases.add(new Object[] {"name", (ThrowingCallable) () -> locks.get("k".repeat(1_000_000))});
            cases.add(new Object[] {"wait", (ThrowingCallable) () -> lock.tryLock(null)});
            cases.add(new Object[] {"wait", (ThrowingCallable) () -> lock.tryLock(Duration.ofMillis(-1))});
            cases.add(new Object[] {"lease", (ThrowingCallable) () -> lock.tryLock(Duration.ZERO, null)});
            cases.add(new Object[] {"lease", (ThrowingCallable) () -> lock.tryLock(Duration.ZERO, Duration.ZERO)});
            cases.add(
                    new Object[] {"lease", (ThrowingCallable) () -> lock.tryLock(Duration.ZERO, Duration.ofMillis(5))});
            cases.add(new Object[] {"lease", (ThrowingCallable) () -> lock.tryLock(Duration.ZERO, forever)});
            cases.add(new Object[] {"wait", (ThrowingCallable) () -> lock.acquire(null)});
            cases.add(new Object[] {"wait", (ThrowingCallable) () -> lock.acquire(Duration.ofSeconds(-5))});
            cases.add(
                    new Object[] {"lease", (ThrowingCallable) () -> lock.acquire(Duration.ZERO, Duration.ofDays(-1))});
            cases.add(new Object[] {"wait", (ThrowingCallable) () -> lock.tryAcquire(null)});
            cases.add(new Object[] {"lease", (ThrowingCallable) () -> lock.tryAcquire(Duration.ZERO, null)});
            cases.add(new Object[] {"body", (ThrowingCallable) () -> lock.withLock((Runnable) null)});
            cases.add(new Object[] {
                "body", (ThrowingCallable) () -> lock.withLock((java.util.concurrent.Callable<Object>) null)
            });
            cases.add(new Object[] {"wait", (ThrowingCallable) () -> lock.withLock(null, () -> {})});
            for (Object[] c : cases) {
                String argument = (String) c[0];
                assertThatThrownBy((ThrowingCallable) c[1])
                        .as("argument %s", argument)
                        .isInstanceOfAny(NullPointerException.class, IllegalArgumentException.class)
                        .hasMessageContaining(argument);
            }
            assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
            assertThatThrownBy(lock::fencingToken).isInstanceOf(IllegalMonitorStateException.class);
        }
        try (Jedis admin = server.newConnection()) {
            // nothing but the registry entry that build() writes for the prefix (docs/names.md)
            assertThat(admin.keys("*")).containsOnly("lock:registry");
            assertThat(admin.info("commandstats")).doesNotContain("cmdstat_eval");
        }
    }
}
