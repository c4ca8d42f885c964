package io.github.deferlock.consumer.contract;

/**
 * A message of the adapter contract: its id, the key it locks ({@code order:<key>}), its place among the key's
 * messages ({@code seq}, from 0) and whether its handler always throws.
 */
public record ContractMessage(String id, String key, int seq, boolean poison) {}
