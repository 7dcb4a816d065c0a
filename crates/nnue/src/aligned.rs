//! Buffers that start on a cache-line boundary. The kernels load 32 bytes
//! at a time at multiples of 32 bytes from a buffer's start (weight rows,
//! accumulators, weight blocks): from a 64-byte boundary no load or store
//! crosses a cache line, where from an allocator's 16-byte one half of
//! them do, and cost two accesses (and a store so split cannot forward to
//! the next load).

use std::marker::PhantomData;

/// One cache line.
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C, align(64))]
struct CacheLine([u8; 64]);

/// The plain integers an [`AlignedVec`] holds (any bit pattern is a value,
/// zero bytes are zero).
pub trait Plain: Copy + Default + 'static {}
impl Plain for i8 {}
impl Plain for i16 {}

/// A vector of `T` from a cache-line boundary.
#[derive(Clone, Debug, PartialEq)]
pub struct AlignedVec<T: Plain> {
    lines: Vec<CacheLine>,
    len: usize,
    values: PhantomData<T>,
}

impl<T: Plain> AlignedVec<T> {
    /// `len` zeros.
    pub fn zeroed(len: usize) -> AlignedVec<T> {
        let mut v = AlignedVec {
            lines: Vec::new(),
            len: 0,
            values: PhantomData,
        };
        v.resize_zeroed(len);
        v
    }

    /// A copy of `values`.
    pub fn from_slice(values: &[T]) -> AlignedVec<T> {
        let mut v = AlignedVec::zeroed(values.len());
        v.as_mut_slice().copy_from_slice(values);
        v
    }

    /// Grows or shrinks to `len` values, new ones zero, the others kept.
    pub fn resize_zeroed(&mut self, len: usize) {
        let old = self.len;
        self.lines
            .resize((len * size_of::<T>()).div_ceil(64), CacheLine([0; 64]));
        self.len = len;
        if len > old {
            // The tail of the last kept line may hold old values.
            self.as_mut_slice()[old..].fill(T::default());
        }
    }

    /// The values.
    pub fn as_slice(&self) -> &[T] {
        // SAFETY: `lines` holds at least `len * size_of::<T>()` contiguous
        // bytes (`CacheLine` is `repr(C)`, 64 bytes, no padding), aligned
        // for any `Plain` type, every bit pattern of which is a value.
        unsafe { std::slice::from_raw_parts(self.lines.as_ptr().cast::<T>(), self.len) }
    }

    /// The values, mutable.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        // SAFETY: as in `as_slice`, borrowed mutably.
        unsafe { std::slice::from_raw_parts_mut(self.lines.as_mut_ptr().cast::<T>(), self.len) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starts_on_a_line_keeps_values_and_zeroes_growth() {
        let mut v = AlignedVec::from_slice(&[1i16, -2, 3]);
        assert_eq!(v.as_slice().as_ptr() as usize % 64, 0);
        v.resize_zeroed(40);
        assert_eq!(&v.as_slice()[..4], &[1, -2, 3, 0]);
        v.as_mut_slice()[39] = 7;
        v.resize_zeroed(2);
        v.resize_zeroed(40);
        assert_eq!(v.as_slice()[39], 0);
        assert_eq!(v.as_slice().len(), 40);
    }
}
