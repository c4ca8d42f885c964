package io.github.deferlock.consumer.contract;

import io.github.deferlock.conflict.DeferMode;
import io.github.deferlock.consumer.ConsumerListener;
import java.util.Arrays;
import java.util.List;
import redis.clients.jedis.HostAndPort;

/**
 * A consumer JVM for the contract's SIGKILL: builds the contract handler on the Redis at the given port (no
 * deferral worker: the test JVM's drains the parked work) and starts the adapter's consumer, then prints READY
 * and runs until killed. Args: starter class, redis port, defer mode, concurrency, broker args...
 */
public final class ContractConsumerMain {
    private ContractConsumerMain() {}

    public static void main(String[] args) throws Exception {
        ConsumerStarter starter = (ConsumerStarter)
                Class.forName(args[0]).getDeclaredConstructor().newInstance();
        HostAndPort redis = new HostAndPort("127.0.0.1", Integer.parseInt(args[1]));
        DeferMode mode = DeferMode.valueOf(args[2]);
        int concurrency = Integer.parseInt(args[3]);
        List<String> brokerArgs = Arrays.asList(args).subList(4, args.length);
        ContractFixture f = new ContractFixture(redis, redis, mode);
        starter.start(brokerArgs, f, new ConsumerListener() {}, concurrency);
        System.out.println("READY");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
