import { Injectable } from '@nestjs/common';

/** An ordinary provider a task injects, to show tasks keep full dependency injection. */
@Injectable()
export class GreetingService {
  greet(name: string): string {
    return `Hello, ${name}!`;
  }
}
