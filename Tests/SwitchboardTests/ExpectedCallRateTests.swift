import Testing

@testable import Switchboard

/// `expectedCallRate` sizes the transaction tables for the transactions that rate keeps alive: two per call
/// for 64*T1, a tenth more for those in progress; the transaction limit rises to hold them.
@Suite struct ExpectedCallRateTests {
    @Test func theRateBecomesTransactionsAlive() {
        var configuration = CallProviderConfiguration()
        #expect(configuration.expectedTransactions == 0)
        configuration.expectedCallRate = 100
        // 100 calls/s × 2 transactions × 32 s × 1.1.
        #expect(configuration.expectedTransactions == 7_040)
        configuration.t1 = .milliseconds(250)
        #expect(configuration.expectedTransactions == 3_520)
        #expect(configuration.transactionLimit == configuration.maximumTransactions)
        // 8,000 calls/s keep 563,200 alive at T1 = 500 ms: past the default limit, which rises to them.
        configuration.t1 = .milliseconds(500)
        configuration.expectedCallRate = 8_000
        #expect(configuration.expectedTransactions == 563_200)
        #expect(configuration.transactionLimit == 563_200)
        configuration.maximumTransactions = 1_000_000
        #expect(configuration.transactionLimit == 1_000_000)
        configuration.expectedCallRate = 100_000
        #expect(configuration.expectedTransactions == 1 << 22)
    }
}
