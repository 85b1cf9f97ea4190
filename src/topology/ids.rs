//! Typed keys the topology hands out for its devices and cables, and the tables later stages
//! keep per device or per cable. A later stage keys on these, never on a position it counted
//! itself: a `PerLink<T>` can only be built over a fabric's links and read by a `LinkId`, so
//! "index = position in `Fabric::links()`" is a type, not an agreement.

use std::ops::{Index, IndexMut};

use super::Fabric;

/// A cable of one fabric.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LinkId(u32);

/// A device of one fabric.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DeviceId(u32);

impl LinkId {
    pub(super) fn new(i: usize) -> Self {
        Self(u32::try_from(i).unwrap_or(u32::MAX))
    }

    pub(super) fn index(self) -> usize {
        self.0 as usize
    }

    /// The cable's row in `Fabric::links()` order, for an output that numbers its rows (the
    /// report's data block); never a key into another stage's table.
    pub fn position(self) -> usize {
        self.index()
    }
}

impl DeviceId {
    pub(super) fn new(i: usize) -> Self {
        Self(u32::try_from(i).unwrap_or(u32::MAX))
    }

    pub(super) fn index(self) -> usize {
        self.0 as usize
    }
}

/// One value per cable of a fabric, read by [`LinkId`].
#[derive(Clone, Debug, PartialEq)]
pub struct PerLink<T>(Vec<T>);

/// One value per device of a fabric, read by [`DeviceId`].
#[derive(Clone, Debug, PartialEq)]
pub struct PerDevice<T>(Vec<T>);

impl<T> Default for PerLink<T> {
    fn default() -> Self {
        Self(Vec::new())
    }
}

impl<T> Default for PerDevice<T> {
    fn default() -> Self {
        Self(Vec::new())
    }
}

impl<T> PerLink<T> {
    /// `value` of every link of `f`, in link order.
    pub fn of(f: &Fabric, mut value: impl FnMut(LinkId, &super::Link) -> T) -> Self {
        Self(f.links_with_ids().map(|(id, l)| value(id, l)).collect())
    }

    /// Values made in `Fabric::links()` order, one per link; `None` when the count differs.
    pub fn in_link_order(f: &Fabric, values: Vec<T>) -> Option<Self> {
        (values.len() == f.link_count()).then_some(Self(values))
    }

    pub fn get(&self, id: LinkId) -> Option<&T> {
        self.0.get(id.index())
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Every value with its link, in link order.
    pub fn iter(&self) -> impl Iterator<Item = (LinkId, &T)> {
        self.0.iter().enumerate().map(|(i, v)| (LinkId::new(i), v))
    }

    pub fn values(&self) -> impl Iterator<Item = &T> {
        self.0.iter()
    }
}

impl<A, B> PerLink<(A, B)> {
    /// Two tables from one of pairs (values moved, not copied).
    pub fn unzip(self) -> (PerLink<A>, PerLink<B>) {
        let (a, b) = self.0.into_iter().unzip();
        (PerLink(a), PerLink(b))
    }
}

impl<T> Index<LinkId> for PerLink<T> {
    type Output = T;
    fn index(&self, id: LinkId) -> &T {
        &self.0[id.index()]
    }
}

impl<T> PerDevice<T> {
    /// `value` of every device of `f`, in device order.
    pub fn of(f: &Fabric, mut value: impl FnMut(DeviceId, &super::Device) -> T) -> Self {
        Self(f.devices_with_ids().map(|(id, d)| value(id, d)).collect())
    }

    /// Values made in `Fabric::devices()` order, one per device; `None` when the count differs.
    pub fn in_device_order(f: &Fabric, values: Vec<T>) -> Option<Self> {
        (values.len() == f.device_count()).then_some(Self(values))
    }

    pub fn values(&self) -> impl Iterator<Item = &T> {
        self.0.iter()
    }

    /// `change` applied to every value.
    pub fn for_each(&mut self, change: impl FnMut(&mut T)) {
        self.0.iter_mut().for_each(change);
    }

    pub fn get(&self, id: DeviceId) -> Option<&T> {
        self.0.get(id.index())
    }

    /// Every value with its device, in device order.
    pub fn iter(&self) -> impl Iterator<Item = (DeviceId, &T)> {
        self.0
            .iter()
            .enumerate()
            .map(|(i, v)| (DeviceId::new(i), v))
    }
}

impl<T> Index<DeviceId> for PerDevice<T> {
    type Output = T;
    fn index(&self, id: DeviceId) -> &T {
        &self.0[id.index()]
    }
}

impl<T> IndexMut<DeviceId> for PerDevice<T> {
    fn index_mut(&mut self, id: DeviceId) -> &mut T {
        &mut self.0[id.index()]
    }
}
