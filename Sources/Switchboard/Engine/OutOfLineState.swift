/// State that most calls or sessions never set, kept out of line so that they hold one reference instead of
/// all of it: made on the first change that sets something, let go once everything is back at its default.
protocol OutOfLineState: AnyObject {
    init()
    /// Everything is at its default: the holder can let the box go.
    var isEmpty: Bool { get }
}

extension OutOfLineState {
    /// Applies `change` to `box`, made when needed and let go once all of it is back at its default (a change
    /// that leaves a default at its default makes none).
    static func update(_ box: inout Self?, _ change: (Self) -> Void) {
        let state = box ?? Self()
        change(state)
        box = state.isEmpty ? nil : state
    }
}
