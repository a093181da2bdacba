import Testing

@testable import Switchboard

/// `expectedCallRate` sizes the transaction tables for the transactions that rate keeps alive: two per call
/// for 64*T1, a tenth more for those in progress, never more than `maximumTransactions`.
@Suite struct ExpectedCallRateTests {
    @Test func theRateBecomesTransactionsAlive() {
        var configuration = CallProviderConfiguration()
        #expect(configuration.expectedTransactions == 0)
        configuration.expectedCallRate = 100
        // 100 calls/s × 2 transactions × 32 s × 1.1.
        #expect(configuration.expectedTransactions == 7_040)
        configuration.t1 = .milliseconds(250)
        #expect(configuration.expectedTransactions == 3_520)
        configuration.expectedCallRate = 100_000
        #expect(configuration.expectedTransactions == configuration.maximumTransactions)
    }
}
