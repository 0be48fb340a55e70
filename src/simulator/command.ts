// `gatehouse simulate`.
import { Command } from 'commander';

export function simulatorCommand(): Command {
  return new Command('simulate').description('(not yet built)').action(async () => {
    throw new Error('not yet built');
  });
}
