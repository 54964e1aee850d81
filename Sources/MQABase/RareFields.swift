/// Fields a type sets seldom, gathered in one struct for `RareFields`;
/// `none` has every field at its default.
public protocol RareFieldSet: Equatable, Sendable {
    static var none: Self { get }
}

/// A struct's seldom-set fields behind one optional reference: 8 bytes in
/// the struct, and a box only while some field is not its default. For
/// types held by the hundred thousand (an incident's evidence, a signal)
/// whose rare fields would otherwise take most of each.
///
/// Read a field with `fields[path]` (its default without a box); a write
/// makes a new box (one is never shared while written), and all defaults
/// drop it, so equal values compare equal.
public struct RareFields<Value: RareFieldSet>: Equatable, Sendable {
    @usableFromInline
    final class Box: Sendable {
        @usableFromInline let value: Value
        @usableFromInline init(_ value: Value) { self.value = value }
    }

    @usableFromInline var box: Box?

    @inlinable
    public init() {}

    /// Every field as given: a box unless all are defaults.
    @inlinable
    public init(_ value: Value) { box = value == Value.none ? nil : Box(value) }

    /// Every field: the box's, or `none`.
    @inlinable
    public var value: Value { box?.value ?? Value.none }

    @inlinable
    public subscript<T>(path: WritableKeyPath<Value, T>) -> T {
        get { (box?.value ?? Value.none)[keyPath: path] }
        set {
            var v = box?.value ?? Value.none
            v[keyPath: path] = newValue
            self = RareFields(v)
        }
    }

    @inlinable
    public static func == (a: RareFields, b: RareFields) -> Bool {
        a.box === b.box || (a.box?.value ?? Value.none) == (b.box?.value ?? Value.none)
    }
}
