/** Side-by-side benchmarks of deferlock against Redisson, bare Jedis and the seed designs. */
package io.github.deferlock.benchmarks;
