//! The order files are rewritten in: a file's hash is taken after its own references are
//! rewritten, so each file comes after the files it references. Strongly connected
//! components (Tarjan, 1972) come out in exactly that order, dependencies first; a component
//! of more than one file (or a file that references itself) is a cycle.

/// The components of the graph `edges` (node `i` references `edges[i]`), each file after the
/// files it references, with whether the component is a cycle.
pub(crate) fn order(edges: &[Vec<usize>]) -> Vec<(Vec<usize>, bool)> {
    let mut tarjan = Tarjan {
        edges,
        index: vec![None; edges.len()],
        low: vec![0; edges.len()],
        on_stack: vec![false; edges.len()],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for node in 0..edges.len() {
        if tarjan.index[node].is_none() {
            tarjan.visit(node);
        }
    }
    tarjan.out
}

struct Tarjan<'a> {
    edges: &'a [Vec<usize>],
    index: Vec<Option<usize>>,
    low: Vec<usize>,
    on_stack: Vec<bool>,
    stack: Vec<usize>,
    next: usize,
    out: Vec<(Vec<usize>, bool)>,
}

impl Tarjan<'_> {
    fn visit(&mut self, node: usize) {
        self.index[node] = Some(self.next);
        self.low[node] = self.next;
        self.next += 1;
        self.stack.push(node);
        self.on_stack[node] = true;
        for &next in &self.edges[node] {
            match self.index[next] {
                None => {
                    self.visit(next);
                    self.low[node] = self.low[node].min(self.low[next]);
                }
                Some(index) if self.on_stack[next] => {
                    self.low[node] = self.low[node].min(index);
                }
                Some(_) => {}
            }
        }
        if Some(self.low[node]) == self.index[node] {
            let mut component = Vec::new();
            while let Some(member) = self.stack.pop() {
                self.on_stack[member] = false;
                component.push(member);
                if member == node {
                    break;
                }
            }
            let cycle = component.len() > 1 || self.edges[node].contains(&node);
            self.out.push((component, cycle));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_file_comes_after_what_it_references_and_cycles_are_named() {
        // 0 -> 1 -> 2, 0 -> 3 <-> 4, 5 -> 5, 6 alone.
        let edges = vec![
            vec![1, 3],
            vec![2],
            vec![],
            vec![4],
            vec![3],
            vec![5],
            vec![],
        ];
        let order = order(&edges);
        let position = |n: usize| order.iter().position(|(c, _)| c.contains(&n)).unwrap();
        for (from, to) in [(0, 1), (1, 2), (0, 3)] {
            assert!(position(to) < position(from), "{to} before {from}");
        }
        assert_eq!(position(3), position(4));
        let cycles: Vec<bool> = [0, 2, 3, 5, 6].map(|n| order[position(n)].1).to_vec();
        assert_eq!(cycles, [false, false, true, true, false]);
        assert_eq!(order.iter().map(|(c, _)| c.len()).sum::<usize>(), 7);
    }
}
