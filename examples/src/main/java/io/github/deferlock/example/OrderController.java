package io.github.deferlock.example;

import io.github.deferlock.spring.LockOutcome;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/** {@code POST /orders/{id}/events/{kind}} applies an event (200, or 202 when deferred); {@code GET /orders} lists. */
@RestController
public class OrderController {

    private final Ledger ledger;

    /** A controller over {@code ledger}. */
    public OrderController(Ledger ledger) {
        this.ledger = ledger;
    }

    /** Applies one event: 200 with the order's event count, or 202 Accepted when it was deferred. */
    @PostMapping("/orders/{id}/events/{kind}")
    public ResponseEntity<String> event(@PathVariable long id, @PathVariable String kind) throws InterruptedException {
        LockOutcome<Long> outcome = ledger.apply(new OrderEvent(id, kind));
        if (outcome.isDeferred()) {
            return ResponseEntity.status(HttpStatus.ACCEPTED).body("deferred: order " + id + " is busy\n");
        }
        return ResponseEntity.ok("applied: order " + id + " has " + outcome.value() + " events\n");
    }

    /** Events applied so far, by order. */
    @GetMapping("/orders")
    public Map<Long, Long> orders() {
        return ledger.applied();
    }
}
