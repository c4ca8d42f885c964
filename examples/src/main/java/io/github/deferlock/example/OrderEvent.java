package io.github.deferlock.example;

/**
 * An event of one order.
 *
 * @param orderId the order
 * @param kind what happened: "item-added" or "paid"
 */
public record OrderEvent(long orderId, String kind) {}
